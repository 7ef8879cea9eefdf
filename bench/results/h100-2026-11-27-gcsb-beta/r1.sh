#!/usr/bin/env bash
# Device run 1: the committed tree (default beta = 32 for f64 when 16x16 blocks fill sparsely,
# fbedc8f, never run on a GPU before) built here with CUDA; the whole test suite; one bench run of
# GCSB with cuSPARSE beside on the three pruned-layer matrices, f64 and f32.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
log "build done"
timeout 200 meson test -C build-gpu --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
R=values=random,seed=42
timeout 250 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb|gcsb.*beta" $OUT/bench.log | head -40
log done
