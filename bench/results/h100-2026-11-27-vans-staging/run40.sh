#!/usr/bin/env bash
# Device run 40 (H100): R7 (tree: staging, predicated ring load, two fills in flight, first
# rows' loads before the staging, cursors prefetched into L2) against R6 and R5.
set -uo pipefail
start=$SECONDS
log() { printf '[run40 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
cuobjdump -sass .ab/R7/libzsparse-cuda.so | awk '/Function : .*vans_layer_pairsILb1ELi2ELb0ELb1ELb0ELi2048/{p=1} /Function : /&&!/vans_layer_pairsILb1ELi2ELb0ELb1ELb0ELi2048/{p=0} p' | gzip > $OUT/sass-R7.txt.gz
$Z vans gen n=4096,k=4,seed=1,entropy=4 /tmp/p4096.vans --pairs >/dev/null &
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/p8192.vans --pairs >/dev/null &
$Z vans gen n=16384,k=4,seed=1,entropy=4 /tmp/p16384.vans --pairs >/dev/null &
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
for v in 0 24 25 14 15 12 23 1 3 5; do
  ZS_MODULE_DIR=.ab/R7 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "R7 test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt
done
wait
log tested
for round in 1 2; do
  for n in 4096 8192 16384 32768; do
    for mv in R5:0 R6:0 R7:0 R7:24 R7:25; do
      m=${mv%%:*} v=${mv##*:}
      r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module $m variant $v: $r"
    done
  done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9]*\) module \([A-Z0-9]*\) variant \([0-9a-z-]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 v\3 \4 \5/'
log ab
