#!/usr/bin/env bash
# Device run 43 (H100): which kernels of the chain to launch early (R9: ZS_VANS_GPU_EARLY bit 1
# the layer kernels, bit 2 the requantisations) against R6 (abb87eb).
set -uo pipefail
start=$SECONDS
log() { printf '[run43 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for n in 2048 4096 8192 16384; do $Z vans gen n=$n,k=4,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null & done
for e in 1 2 3; do ZS_MODULE_DIR=.ab/R9 ZS_VANS_GPU_EARLY=$e build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; echo "R9 test_vans cuda early=$e rc $?"; done
wait
log tested
for round in 1 2 3; do
  for n in 2048 4096 8192 16384; do
    for mv in R6:3 R9:0 R9:1 R9:2 R9:3; do
      m=${mv%%:*} e=${mv##*:}
      r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_EARLY=$e $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module $m variant early$e: $r"
    done
  done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9a-z]*\) module \([A-Z0-9]*\) variant \([0-9a-z-]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 \3 \4 \5/'
log ab
