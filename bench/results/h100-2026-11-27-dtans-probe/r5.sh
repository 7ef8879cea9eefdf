#!/usr/bin/env bash
# Device run 5 (ninth session): the working tree's module (.ab/dynr: raw values from tickets where
# the slices need three rounds or more, raw_slices=stride|tickets) runs the whole test suite,
# then one bench run with cuSPARSE beside on the random-valued 3-D stencil: dtANS with the
# default lanes and with lane_symbols=256.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_build_wait
dev_tests .ab/dynr 170
export ZS_MODULE_DIR=$PWD/.ab/dynr
log "tests done"
R=values=random,seed=42
timeout 250 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format dtans --format dtans:lane_symbols=256 \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" gen:stencil3d:n=160,points=27,$R > "$OUT/bench.log" 2>&1
echo "bench rc $?"; tail -30 "$OUT/bench.md"
log "all done"
