#!/usr/bin/env bash
# Device run 30 (H100): pair kernel with a stream ring in shared memory (variants 14, 24).
set -uo pipefail
start=$SECONDS
log() { printf '[run30 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
for v in 0 14 24; do ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda > $OUT/test_v$v.txt 2>&1; echo "test_vans cuda variant $v rc $?"; tail -1 $OUT/test_v$v.txt; done
log tested
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 12,23,14,24 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 150 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 --variants 23,24 32768 2>&1 | tee $OUT/bench32k.txt
log done
