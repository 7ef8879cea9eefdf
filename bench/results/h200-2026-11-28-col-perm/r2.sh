#!/usr/bin/env bash
# Device run 2 (fifteenth session, H200): module .ab/cp2 = r1's plus (a) the deterministic SpMVT's
# uncompressed Aᵀ of a version-4 operator built with the matrix's column order, so y is not copied
# through col_perm, and (b) the encoder's renumbering by per-row sorts in parallel and a counting
# sort of the column counts (r1: 11.3 s to encode R-MAT f64 with col_order=frequency, 2.35 s
# without). The whole suite; R-MAT f64 (64 values and random) with both column orders and
# cuSPARSE beside; then issue 4's few-valued f64 table on this device (suite-set, default
# encoding), warm and cold.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_build_wait
dev_tests .ab/cp2 200
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "tests done"
export ZS_MODULE_DIR=$PWD/.ab/cp2
S=seed=42
timeout 120 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --types f64 --format dtans \
  --format dtans:col_order=frequency --csv "$OUT/rmat.csv" \
  gen:rmat:scale=22,per_row=16,values=set,distinct=64,$S gen:rmat:scale=22,per_row=16,values=random,$S \
  >"$OUT/rmat.log" 2>&1
echo "rmat bench rc $?"
grep -E "zs_encode dtans|zsparse +dtans|csr-alg1 +N|coo-alg1 +N" "$OUT/rmat.log" | cut -c1-130
log "rmat done"
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --types f64 --format dtans \
  --csv "$OUT/set.csv" --md "$OUT/set.md" suite-set >"$OUT/set.log" 2>&1
echo "suite-set bench rc $?"
grep -E "zsparse +dtans +N|cusparse +(csr-alg1|csr-alg2|coo-alg1|sell32) +N" "$OUT/set.log" | cut -c1-100
log "all done"
