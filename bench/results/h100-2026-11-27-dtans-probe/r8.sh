#!/usr/bin/env bash
# Device run 8 (ninth session): one bench run with cuSPARSE beside on the few-valued 3-D stencil
# and banded matrix (values from a set of 64), f64: dtANS with the default lanes and with
# lane_symbols=256. The module is the committed tree's (.ab/dynr, whose suite passed in r5).
set -uo pipefail
. bench/device-lib.sh
dev_begin r8
dev_build_bg
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/dynr
S=values=set,distinct=64,seed=42
timeout 400 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --types f64 --format dtans \
  --format dtans:lane_symbols=256 --csv "$OUT/bench.csv" --md "$OUT/bench.md" \
  gen:stencil3d:n=160,points=27,$S gen:banded:rows=8388608,width=128,per_row=20,$S > "$OUT/bench.log" 2>&1
echo "bench rc $?"; grep -E 'zsparse +dtans' "$OUT/bench.log" | grep ' N ' | cut -c1-120; tail -6 "$OUT/bench.md"
log "all done"
