#!/usr/bin/env bash
# Device run 1 (eleventh session): zs_spmv_pair. The whole suite with the module of this tree
# (.ab/pair: the GCSB and dtANS fused pair kernels; conformance-cuda now runs the pair on every
# variant), then one bench with cuSPARSE beside on the GCSB matrices of issue 6 (random values,
# f64 and f32): separate products, atomic ones, and the pair on an operator whose SpMVT is atomic.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_and_test .ab/pair 170
R=values=random,seed=42
timeout 330 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb \
  --csv "$OUT/bench.csv" --md "$OUT/bench.md" \
  gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
  gen:banded:rows=8388608,width=128,per_row=20,$R > "$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb(-det|-pair)? |cusparse +(csr-alg1|sell32|coo-alg1) " "$OUT/bench.log" | cut -c1-120
log "all done"
