#!/usr/bin/env bash
# Device run 47 (H100): the tree to commit (exact ring slack, checked by a probe): full CUDA
# build, bench against cuBLAS int8 and Sgemv in the same run, the whole suite, test_vans per
# variant and launch mode.
set -uo pipefail
start=$SECONDS
log() { printf '[run47 %4ds] %s\n' $((SECONDS - start)) "$*"; }
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
for v in 0 12 23 24 25 14 3 5; do for e in 0 3; do ZS_VANS_GPU_EARLY=$e ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; [ $rc = 0 ] || { echo "test_vans cuda variant $v early $e rc $rc"; tail -5 /tmp/t.txt; }; done; done; echo "test_vans variants x modes done"
log tests
timeout 90 build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 8192 16384 2>&1 | tee $OUT/bench-again.txt
log done
