#!/usr/bin/env bash
# Device run 6 (ninth session): the working tree's module (.ab/dynr: raw values from tickets where
# the slices need three rounds or more, raw_slices=stride|tickets) (built in r5 on the same machine),
# then one bench run with cuSPARSE beside on the random-valued banded matrix: dtANS with the
# default lanes and with lane_symbols=256.
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
dev_build_bg
dev_build_wait

export ZS_MODULE_DIR=$PWD/.ab/dynr

R=values=random,seed=42
timeout 420 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format dtans --format dtans:lane_symbols=256 \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" gen:banded:rows=8388608,width=128,per_row=20,$R > "$OUT/bench.log" 2>&1
echo "bench rc $?"; tail -30 "$OUT/bench.md"
log "all done"
