#!/usr/bin/env bash
# Device run 41 (H100): the tree to commit (pair kernel: 16-byte staging, predicated ring load,
# two fills in flight, 1 KiB rings where x then stays in shared memory): full CUDA build, bench
# against cuBLAS int8 and Sgemv in the same run, the whole suite, test_vans with each variant.
set -uo pipefail
start=$SECONDS
log() { printf '[run41 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 24,25 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 150 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 --variants 24,25 32768 2>&1 | tee $OUT/bench32k.txt
log bench2
meson test -C build-gpu --num-processes 6 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Timeout)|FAIL' $OUT/tests.txt
for v in 12 23 14 24 15 25 1 3 5; do ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt; done
log tests
timeout 100 build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 8192 16384 2>&1 | tee $OUT/bench-again.txt
log done
