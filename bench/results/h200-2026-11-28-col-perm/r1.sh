#!/usr/bin/env bash
# Device run 1 (fifteenth session, an H200 this time): CSR-dtANS version 4 (col_order=frequency)
# on the GPU, module .ab/cp (x, SpMVT's y and the pair's z copied through col_perm around the
# kernels). The whole suite (conformance-cuda now runs the dtans:col_order=frequency variant),
# then the bench with cuSPARSE beside, warm and cold, f64 and f32: R-MAT scale 22 with 64 values
# and with random values, default encoding against col_order=frequency; Erdős–Rényi with 64
# values, whose column counts are nearly equal, to see what renumbering does where it should not
# help.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_bg
dev_build_wait
dev_tests .ab/cp 200
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "tests done"
export ZS_MODULE_DIR=$PWD/.ab/cp
S=seed=42
timeout 330 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --format dtans --format dtans:col_order=frequency \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" \
  gen:rmat:scale=22,per_row=16,values=set,distinct=64,$S gen:rmat:scale=22,per_row=16,values=random,$S \
  gen:erdos_renyi:rows=4194304,per_row=16,values=set,distinct=64,$S >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "dtans +N|csr-alg1 +N|coo-alg1 +N|csr-alg2 +N|sell32 +N|dtans.*P " "$OUT/bench.log" | cut -c1-110
log "all done"
