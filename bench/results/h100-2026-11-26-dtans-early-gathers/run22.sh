#!/usr/bin/env bash
# Device run 22: the final tree, full CUDA build and the whole test suite.
set -uo pipefail
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-gpu > $OUT/build.log 2>&1 || { echo build failed; tail -30 $OUT/build.log; exit 1; }
meson test -C build-gpu --num-processes 6 > $OUT/tests.txt 2>&1
grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)' $OUT/tests.txt | grep -vE " OK " 
grep -E '^(Ok|Fail)' $OUT/tests.txt
