#!/usr/bin/env bash
# Device run 2 (twelfth session): the GCSB pair's diagonal block summed in shared memory (the
# team's beta sums of z for block column o, one atomic per column at the end, .ab/zdiag) against
# HEAD's module (.ab/mend2): A/B of the pair (zsparse spmv --op pair, transpose=atomic) on the
# random-valued 2-D and 3-D stencils and the banded f64 matrix; then the whole suite with
# .ab/zdiag, and the bench with cuSPARSE beside on the 2-D stencil. Not kept (bench/NOTES.md;
# diagonal-sums-tried.diff); the suite's two failures were test defects, mended before r3.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R \
  st64 f64 stencil3d:n=160,points=27,$R st32 f32 stencil3d:n=160,points=27,$R \
  band64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs made"
cases=()
for b in lap64 lap32 st64 st32 band64; do cases+=("$B/$b.zsm:pair:transpose=atomic"); done
timeout 330 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/zdiag -- "${cases[@]}" \
  2>&1 | tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/zdiag 200
export ZS_MODULE_DIR=$PWD/.ab/zdiag
timeout 120 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb \
  --csv "$OUT/bench.csv" gen:stencil2d:n=4096,points=5,$R > "$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb(-det|-pair)? |cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-110
log "all done"
