#!/usr/bin/env bash
# Device run 44 (H100): the tree to commit (chain kernels launched early where it pays; pair
# kernel grids capped by tickets): full CUDA build, bench against cuBLAS int8 and Sgemv in the
# same run, the whole suite, test_vans per variant and launch mode, zsparse vans run per mode.
set -uo pipefail
start=$SECONDS
log() { printf '[run44 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 120 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 32768 2>&1 | tee $OUT/bench32k.txt
log bench2
meson test -C build-gpu --num-processes 6 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Timeout)|FAIL' $OUT/tests.txt
for v in 0 12 23 24 25 1 3 5; do for e in 0 2 3; do ZS_VANS_GPU_EARLY=$e ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; [ $rc = 0 ] || { echo "test_vans cuda variant $v early $e rc $rc"; tail -5 /tmp/t.txt; }; done; done; echo "test_vans variants x modes done"
log tests
Z=build-gpu/tools/zsparse/zsparse
for n in 2048 4096 8192 16384; do $Z vans gen n=$n,k=4,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null & done
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/l8192.vans --interleaved >/dev/null &
wait
for round in 1 2; do
  for n in 2048 4096 8192 16384 32768; do for e in 0 2 3; do
    r=$(ZS_VANS_GPU_EARLY=$e $Z vans run /tmp/p$n.vans --backend cuda --reps 20); echo "round $round n $n early $e: $r"
  done; done
  for e in 0 3; do r=$(ZS_VANS_GPU_EARLY=$e $Z vans run /tmp/l8192.vans --backend cuda --reps 20); echo "round $round n l8192 early $e: $r"; done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9a-z]*\) early \([0-9]\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 early\2 \3 \4/'
log ab
timeout 90 build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 8192 16384 2>&1 | tee $OUT/bench-again.txt
log done
