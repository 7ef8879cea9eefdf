#!/usr/bin/env bash
# Device run 36 (H100): the tree to commit (pair kernel with 2 KiB stream rings, the default for
# pair layers): full CUDA build, the whole suite, test_vans with each pair variant forced, bench.
set -uo pipefail
start=$SECONDS
log() { printf '[run36 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 12,23,14,24 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 150 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 --variants 23,24 32768 2>&1 | tee $OUT/bench32k.txt
log bench2
meson test -C build-gpu --num-processes 6 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Timeout)|FAIL' $OUT/tests.txt
for v in 12 23 14 24; do ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt; done
log done
