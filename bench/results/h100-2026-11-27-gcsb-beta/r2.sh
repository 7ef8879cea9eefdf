#!/usr/bin/env bash
# Device run 2: the tree with the staged-x fix (f64 at beta 32 asks for 64 KiB of shared memory;
# r1's conformance-cuda failed 48 atomic-staged cases with "invalid argument") and the new
# conformance variant gcsb:beta=32,group=3; the whole test suite; then the 16384^2 1 % f64 layer
# (beta 32 by default now) with the warp walk's split count forced to 2, 4, 6, 8 (auto), 12, 16,
# and at beta 16 (auto and 4), zsparse only.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
log "build done"
timeout 200 meson test -C build-gpu --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
F=()
for s in 2 4 6 8 12 16; do F+=(--format gcsb@det_splits=$s); done
F+=(--format gcsb:beta=16 --format gcsb:beta=16@det_splits=4)
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --no-vendor --types f64 "${F[@]}" \
  --csv $OUT/bench.csv gen:erdos_renyi:rows=16384,p=0.01,values=random,seed=42 > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +(gcsb|csr)" $OUT/bench.log | cut -c1-120
log done
