#!/usr/bin/env bash
# Device run 46 (H100): R11 = e3382db, R10 = exact ring slack + a device-side check of the ring bounds,
# R12 = R10 without the check (the kernels committed in c29a876).
set -uo pipefail
start=$SECONDS
log() { printf '[run46 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for n in 4096 8192 16384; do $Z vans gen n=$n,k=4,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null & done
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
for v in 0 25; do ZS_MODULE_DIR=.ab/R12 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; echo "R12 test_vans cuda variant $v rc $?"; done
wait
log tested
for round in 1 2 3; do
  for n in 8192 16384 32768; do for m in R11 R10 R12; do
    r=$(ZS_MODULE_DIR=.ab/$m $Z vans run /tmp/p$n.vans --backend cuda --reps 20); echo "round $round n $n module $m: $r"
  done; done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9a-z]*\) module \([A-Z0-9]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 \3 \4/'
log ab
