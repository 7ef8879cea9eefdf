#!/usr/bin/env bash
# Device run 8: the whole test suite against the committed tree's module (.ab/fin2: teams need
# fewer than 2^30 elements instead of 2^31; meson build on the development machine).
set -uo pipefail
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
nvidia-smi -L
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
targets=$(ninja -C build-gpu -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 | grep -v -E '^(backends/|meson-internal)')
ninja -C build-gpu $targets >> $OUT/gpu-build.log 2>&1; echo "build (no module) rc $?"
export ZS_MODULE_DIR=$PWD/.ab/fin2
timeout 200 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
