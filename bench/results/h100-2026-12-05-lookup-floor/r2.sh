#!/usr/bin/env bash
# Device run 2 (eighteenth session, H100): (1) lookup_floor.cu again, now a segment of 8 nonzeros
# at a time (r1's took one nonzero at a time, so its gathers waited one by one and the +x lines
# measured latency), with the 16-byte inline slot and coded values alone added; (2) issue 4's
# random-valued table (suite, default encoding), f64 and f32, warm and cold, cuSPARSE beside.
# SET=suite-set TYPES=f64 runs the few-valued f64 table instead (r1's, for another device).
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/clocks.txt"
[ -x build-gpu/bench/gpu/zs-bench-gpu ] || dev_build_bg
F=bench/results/h100-2026-12-05-lookup-floor
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 "$F/lookup_floor.cu" -o /tmp/lookup_floor &&
  /tmp/lookup_floor | tee "$OUT/floor.txt"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT/clocks.txt"
log "floor done"
[ -x build-gpu/bench/gpu/zs-bench-gpu ] || dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/cur
timeout 400 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --types "${TYPES:-f64,f32}" --format dtans \
  --csv "$OUT/rnd.csv" --md "$OUT/rnd.md" "${SET:-suite}" >"$OUT/rnd.log" 2>&1
echo "suite bench rc $?"
grep -E "zsparse +dtans +N|cusparse +(csr-alg1|csr-alg2|coo-alg1|sell32) +N" "$OUT/rnd.log" | cut -c1-110
log "all done"
