#!/usr/bin/env bash
# Device run 42 (H100): programmatic dependent launch of the chain's kernels (R8 = tree with
# vans_launch; ZS_VANS_GPU_EARLY=0 turns it off) against R6 (the committed kernel, abb87eb).
set -uo pipefail
start=$SECONDS
log() { printf '[run42 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for n in 4096 8192 16384; do $Z vans gen n=$n,k=4,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null & done
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/r8192.vans >/dev/null &
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/l8192.vans --interleaved >/dev/null &
for v in 0 24 25 23 12 1 3 5; do
  ZS_MODULE_DIR=.ab/R8 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "R8 test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt
done
ZS_MODULE_DIR=.ab/R8 ZS_VANS_GPU_EARLY=0 build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; echo "R8 test_vans cuda early=0 rc $?"
wait
log tested
for round in 1 2 3; do
  for n in 4096 8192 16384 32768; do
    for mv in R6:1 R8:1 R8:0; do
      m=${mv%%:*} e=${mv##*:}
      r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_EARLY=$e $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module $m variant early$e: $r"
    done
  done
  for f in r8192 l8192; do for m in R6 R8; do [ -e /tmp/$f.vans ] || continue; r=$(ZS_MODULE_DIR=.ab/$m $Z vans run /tmp/$f.vans --backend cuda --reps 20); echo "round $round n $f module $m variant early1: $r"; done; done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9a-z]*\) module \([A-Z0-9]*\) variant \([0-9a-z-]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 \3 \4 \5/'
log ab
