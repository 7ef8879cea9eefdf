#!/usr/bin/env bash
# Device run 1 (eighteenth session, H100 asked for): (1) lookup_floor.cu, the shared-memory
# lookups CSR-dtANS's decode needs per nonzero and nothing else, at the kernel's occupancy and at
# twice it; (2) the whole test suite with the committed tree's cuda module (.ab/cur); (3) issue
# 4's few-valued f64 table (suite-set, default encoding), warm and cold, cuSPARSE beside.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$OUT/clocks.txt"
dev_build_bg
F=bench/results/h100-2026-12-05-lookup-floor
nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 "$F/lookup_floor.cu" -o /tmp/lookup_floor &&
  /tmp/lookup_floor | tee "$OUT/floor.txt"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT/clocks.txt"
log "floor done"
dev_build_wait
dev_tests .ab/cur 200
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "tests done"
export ZS_MODULE_DIR=$PWD/.ab/cur
timeout 230 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --types f64 --format dtans \
  --csv "$OUT/set.csv" --md "$OUT/set.md" suite-set >"$OUT/set.log" 2>&1
echo "suite-set bench rc $?"
grep -E "zsparse +dtans +N|cusparse +(csr-alg1|csr-alg2|coo-alg1|sell32) +N" "$OUT/set.log" | cut -c1-110
log "all done"
