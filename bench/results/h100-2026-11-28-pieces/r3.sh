#!/usr/bin/env bash
# Device run 3 (thirteenth session). r1-r2: SpMVT's walk waits on its chain of dependent loads
# (per output block: range, tasks, then element -> x for each set of pieces). .ab/xs4 takes x out
# of that chain for the teams' SpMVT: a turn's first 4 blocks have their x segments copied into
# shared memory by cp.async as the turn starts, beside the first element loads, and each element
# reads its x there. HEAD's module (.ab/mend2) beside it, checked first; then the whole suite
# with .ab/xs4 and the GCSB bench with cuSPARSE beside on the 2-D stencil.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R \
  st27 f64 stencil3d:n=160,points=27,$R band64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs made"
timeout 300 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/xs4 -- "$B/lap32.zsm:T" \
  "$B/lap64.zsm:T" "$B/lap32.zsm:N" "$B/lap64.zsm:N" "$B/st27.zsm:T" "$B/band64.zsm:T" \
  2>&1 | tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/xs4 200
export ZS_MODULE_DIR=$PWD/.ab/xs4
log "tests done"
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --csv "$OUT/bench.csv" --md "$OUT/bench.md" --no-cold \
  --reps 10 --format gcsb "gen:stencil2d:n=4096,points=5,$R" >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E 'gcsb|ALG1|cusparse' "$OUT/bench.log" | head -30
log "all done"
