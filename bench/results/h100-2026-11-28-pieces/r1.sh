#!/usr/bin/env bash
# Device run 1 (thirteenth session): SpMVT's walk by pieces (zs_csb_piece_kernel) for issue 6's
# two short cells, the 2-D stencil's deterministic SpMV + SpMVT. Modules: .ab/mend2 (HEAD before
# the change), .ab/pc4 (pieces, 4 loaded per step), .ab/pc8 (8 per step). zsparse spmv, median
# µs, two rounds, every module checked on every case first; then the whole suite with .ab/pc4
# and the GCSB bench with cuSPARSE beside on the 2-D stencil.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R \
  st27 f64 stencil3d:n=160,points=27,$R band64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs made"
cases=()
for b in lap64 lap32; do
  cases+=("$B/$b.zsm:T" "$B/$b.zsm:T:det_pieces=off" "$B/$b.zsm:N")
done
cases+=("$B/st27.zsm:T" "$B/st27.zsm:T:det_pieces=on" "$B/band64.zsm:T" "$B/band64.zsm:T:det_pieces=off")
timeout 420 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/pc4 .ab/pc8 -- "${cases[@]}" 2>&1 | tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/pc4 200
export ZS_MODULE_DIR=$PWD/.ab/pc4
log "tests done"
timeout 240 build-gpu/bench/gpu/zs-bench-gpu --csv "$OUT/bench.csv" --md "$OUT/bench.md" --no-cold \
  --reps 10 --format gcsb "gen:stencil2d:n=4096,points=5,$R" >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -iE 'gcsb|cusparse|ceiling' "$OUT/bench.md" | head -40
log "all done"
