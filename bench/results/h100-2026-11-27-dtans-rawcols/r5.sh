#!/usr/bin/env bash
# Device run 5: the final tree (raw columns; vans_launch with one plain launch) built here with
# CUDA, and the whole test suite run on the H100.
set -uo pipefail
start=$SECONDS
log() { printf '[r5 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
nvidia-smi -L
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
log "build done"
timeout 330 meson test -C build-gpu --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL| SKIP ' $OUT/tests.txt
log done
