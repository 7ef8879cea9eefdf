#!/usr/bin/env bash
# Device run 45 (H100): exact alignment slack for the pair rings (R10 = tree): at N = 32768 two
# blocks with 2 KiB rings keep x in shared memory (variant 0) against 1 KiB rings (variant 25).
set -uo pipefail
start=$SECONDS
log() { printf '[run45 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for n in 4096 8192 16384; do $Z vans gen n=$n,k=4,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null & done
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
for v in 0 24 25 14 15 23; do ZS_MODULE_DIR=.ab/R10 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "R10 test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt; done
wait
log tested
for round in 1 2 3; do
  for n in 4096 8192 16384 32768; do for v in 0 25; do
    [ $n != 32768 ] && [ $v = 25 ] && continue
    r=$(ZS_MODULE_DIR=.ab/R10 ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20); echo "round $round n $n variant $v: $r"
  done; done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9a-z]*\) variant \([0-9]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 v\2 \3 \4/'
log ab
