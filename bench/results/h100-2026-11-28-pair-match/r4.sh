#!/usr/bin/env bash
# Device run 4 (twelfth session): issue 6's two short cells, the 2-D stencil's deterministic
# SpMV + SpMVT in f32 (1.36x cuSPARSE's two products) and f64 (1.44x). Are the walk's automatic
# choices (four output blocks per warp: det_teams; the warp walk: det_walk) the best for each op,
# and for blocks of 16 in f32? HEAD's module (.ab/mend2), zsparse spmv, median µs, two rounds.
# They are: bench/NOTES.md, "The walk's automatic choices checked, and eight teams".
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R
dev_gen gcsb:beta=16 lap32b16 f32 stencil2d:n=4096,points=5,$R
log "blobs made"
cases=()
for b in lap32 lap64 lap32b16; do
  for op in N T; do
    cases+=("$B/$b.zsm:$op" "$B/$b.zsm:$op:det_teams=2" "$B/$b.zsm:$op:det_teams=1")
  done
  cases+=("$B/$b.zsm:N:det_walk=lanes" "$B/$b.zsm:T:det_walk=lanes")
done
timeout 400 bash bench/ab-modules.sh -r 2 -n 20 .ab/mend2 -- "${cases[@]}" 2>&1 | tee "$OUT/ab.txt"
log "all done"
