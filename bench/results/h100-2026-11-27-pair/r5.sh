#!/usr/bin/env bash
# Device run 5 (eleventh session): the GCSB pair's f32 atomics in pairs of columns (float2 vector
# atomics, .ab/vec) against one atomic per element (.ab/final, 36c7d76): the bench with cuSPARSE
# beside, f32, the 2-D and 3-D stencils and the banded matrix, random values, once per module;
# then the whole suite with .ab/vec.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_build_wait
R=values=random,seed=42
for m in final vec; do
  ZS_MODULE_DIR=$PWD/.ab/$m timeout 150 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 \
    --types f32 --format gcsb --csv "$OUT/bench-$m.csv" \
    gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
    gen:banded:rows=8388608,width=128,per_row=20,$R > "$OUT/bench-$m.log" 2>&1
  echo "bench $m rc $?"
  grep -E "zsparse +gcsb(-det|-pair)? |cusparse +csr-alg1 " "$OUT/bench-$m.log" | cut -c1-100
done
dev_tests .ab/vec 200
log "all done"
