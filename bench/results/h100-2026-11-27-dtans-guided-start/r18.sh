#!/usr/bin/env bash
# Device run 18 (tenth session): issue 4's few-valued f64 table again on the final tree (1-byte row
# lengths, module .ab/rw as in r17, whose suite passed): the bench with cuSPARSE beside, warm and
# cold cache, default dtANS encoding, the five suite matrices with 64 distinct values.
set -uo pipefail
. bench/device-lib.sh
dev_begin r18
dev_build_bg
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/rw
timeout 480 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --types f64 --format dtans \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" suite-set > "$OUT/bench.log" 2>&1
echo "bench rc $?"; tail -9 "$OUT/bench.md"
log "all done"
