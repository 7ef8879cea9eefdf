#!/usr/bin/env bash
# Device run 3 (eighteenth session): lookup_floor.cu alone (r2's version), for a call too short
# for r2's bench.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/clocks.txt"
F=bench/results/h100-2026-12-05-lookup-floor
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 "$F/lookup_floor.cu" -o /tmp/lookup_floor &&
  /tmp/lookup_floor | tee "$OUT/floor.txt"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT/clocks.txt"
log "floor done"
