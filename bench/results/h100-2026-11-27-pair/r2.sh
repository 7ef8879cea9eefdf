#!/usr/bin/env bash
# Device run 2 (eleventh session): zs_spmv_pair on CSR-dtANS, one decode for both products: the
# bench with cuSPARSE beside on issue 4's five suite matrices with 64 distinct values, f64, warm
# cache; dtANS's separate products, its atomic SpMVT and the pair (module .ab/pair, whose whole
# suite passed in r1).
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/pair
timeout 480 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --types f64 --format dtans \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" suite-set > "$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +dtans(-det|-atomic|-pair)? |cusparse +(csr-alg1|sell32|coo-alg1) " "$OUT/bench.log" | cut -c1-120
log "all done"
