#!/usr/bin/env bash
# Device run 7 (eleventh session): the 2-D stencil f32 pair (1.41x cuSPARSE's two products at the
# default beta = 32) with GCSB blocks of 16 (encoder option; no code change): the bench with
# cuSPARSE beside, module .ab/final2 (36b16cf).
set -uo pipefail
. bench/device-lib.sh
dev_begin r7
dev_build_bg
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/final2
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --types f32 --format gcsb \
  --format gcsb:beta=16 --csv "$OUT/bench.csv" gen:stencil2d:n=4096,points=5,values=random,seed=42 \
  > "$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb|cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-110
log "all done"
