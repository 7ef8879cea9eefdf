#!/usr/bin/env bash
# Device run 1 (fourteenth session): team counts for BiCG's pair. Blocks of 16 made the 2-D
# stencil's f32 pair 9 % faster (607 -> 553 us, eleventh session, r7) while each single product
# lost 6-7 %; their teams walk 80 instead of 160 elements per output block. Does the pair of the
# default encoding (blocks of 32) take the same gain from fewer, longer teams (det_teams=2)?
# A/B of the pair (transpose=atomic) under HEAD's module (.ab/mend2) with det_teams auto / 2 / 1,
# random values, checked first; then the bench with cuSPARSE beside on the 2-D stencil, both
# types, with the same operator options.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R \
  st64 f64 stencil3d:n=160,points=27,$R st32 f32 stencil3d:n=160,points=27,$R
dev_gen gcsb:beta=16 lap32b16 f32 stencil2d:n=4096,points=5,$R
log "blobs made"
P=pair:transpose=atomic
cases=()
for b in lap32 lap64 st32 st64 lap32b16; do
  cases+=("$B/$b.zsm:$P" "$B/$b.zsm:$P,det_teams=2")
done
cases+=("$B/lap32.zsm:$P,det_teams=1" "$B/lap32b16.zsm:$P,det_teams=1")
timeout 330 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 -- "${cases[@]}" 2>&1 | tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/mend2
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb \
  --format gcsb@det_teams=2 --format gcsb:beta=16 --csv "$OUT/bench.csv" \
  gen:stencil2d:n=4096,points=5,$R >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb|cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-120
log "all done"
