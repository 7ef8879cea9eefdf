#!/usr/bin/env bash
# Device run 3: the warp walk's split count from one wave of the split kernel's occupancy (f64 at
# beta 32: 4 parts instead of 8 on the 16384^2 1 % layer). The cuda module was built on the
# development machine from the committed tree (ninja -C build; copied to .ab/new, carried); here
# everything but the module is built, and the tests and the bench load .ab/new through
# ZS_MODULE_DIR. The whole test suite, then one bench run with cuSPARSE beside on the three
# pruned-layer matrices, f64 and f32.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
export ZS_MODULE_DIR=$PWD/.ab/new
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
targets=$(ninja -C build-gpu -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 | grep -v -E '^(backends/|meson-internal)')
ninja -C build-gpu $targets >> $OUT/gpu-build.log 2>&1; echo "build (no module) rc $?"
log "build done"
timeout 200 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
R=values=random,seed=42
timeout 250 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb" $OUT/bench.log | cut -c1-110
log done
