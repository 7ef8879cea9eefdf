#!/usr/bin/env bash
# Device run 1 (twelfth session): the GCSB pair's atomics into z combined within the warp (lanes
# adding into the same z_j add once: match, then shuffles to the lowest lane). A/B of the pair
# (zsparse spmv --op pair, transpose=atomic) under HEAD's module (.ab/mend2), the combining one
# with a 64-bit match key (.ab/match) and with a 32-bit key (.ab/match32), random values; then
# the whole suite with .ab/match, and the bench with cuSPARSE beside on the 2-D stencil.
# The A/B's 240-second limit cut it during st32's second round: no band64 or lap32:N lines. The
# combining was not kept (bench/NOTES.md); its diff is warp-combine-tried.diff.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R \
  st64 f64 stencil3d:n=160,points=27,$R st32 f32 stencil3d:n=160,points=27,$R \
  band64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs made"
cases=()
for b in lap64 lap32 st64 st32 band64; do cases+=("$B/$b.zsm:pair:transpose=atomic"); done
cases+=("$B/lap32.zsm:N")
timeout 240 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/match .ab/match32 -- "${cases[@]}" \
  2>&1 | tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/match 200
export ZS_MODULE_DIR=$PWD/.ab/match
timeout 120 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb \
  --csv "$OUT/bench.csv" gen:stencil2d:n=4096,points=5,$R > "$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb(-det|-pair)? |cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-110
log "all done"
