#!/usr/bin/env bash
# Device run 39 (H100): staging of table and x by 16-byte loads issued ahead (R5 = tree: ring
# plan + staging; R6 = R5 + predicated ring load + two fills in flight) against R1 (committed
# kernel) and R4 (R1 + predicated load + two fills in flight).
set -uo pipefail
start=$SECONDS
log() { printf '[run39 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/p8192.vans --pairs >/dev/null &
$Z vans gen n=16384,k=4,seed=1,entropy=4 /tmp/p16384.vans --pairs >/dev/null &
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/r8192.vans >/dev/null &
for mv in R5:0 R5:25 R5:24 R5:15 R5:12 R5:23 R5:1 R5:3 R5:4 R5:5 R6:0 R6:24 R6:25; do
  m=${mv%%:*} v=${mv##*:}
  ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "$m test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt
done
wait
log tested
for round in 1 2; do
  for n in 8192 16384 32768; do
    for mv in R1:0 R4:24 R5:0 R5:24 R5:25 R6:0 R6:24 R6:25; do
      m=${mv%%:*} v=${mv##*:}
      r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module $m variant $v: $r"
    done
  done
  for m in R1 R5; do r=$(ZS_MODULE_DIR=.ab/$m $Z vans run /tmp/r8192.vans --backend cuda --reps 20); echo "round $round n 8192 module $m variant rows-layout: $r"; done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9]*\) module \([A-Z0-9]*\) variant \([0-9a-z-]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 v\3 \4 \5/'
log ab
