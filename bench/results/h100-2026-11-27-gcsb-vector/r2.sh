#!/usr/bin/env bash
# Device run 2: SpMV streamed by chunks of block rows (zs_csb_stream_kernel, operator option
# det_walk=stream; bench/NOTES.md, "SpMV streamed by chunks of block rows"). One module, the
# working tree's (bash bench/module-variant.sh st), every case checked first (-c): the default
# walk against det_walk=stream in the same module, and SpMVT on the copy the stream walk uses
# (row order inside blocks). This was the first form of the kernel (the chunk's block row, then
# its offsets: two dependent loads; the tags in registers); stream-walk-tried.diff holds r3's form.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
BD=banded:rows=8388608,width=128,per_row=20,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3 st27-f32 f32 $S3 band-f64 f64 $BD
log "blobs done"
S=det_walk=stream
C=()
for c in lap2d-f64:N lap2d-f64:N:$S lap2d-f64:T lap2d-f64:T:$S lap2d-f32:N lap2d-f32:N:$S \
  lap2d-f32:T:$S st27-f64:N st27-f64:N:$S st27-f32:N st27-f32:N:$S band-f64:N band-f64:N:$S; do
  C+=("$B/$c")
done
for i in "${!C[@]}"; do C[i]=${C[i]/:/.zsm:}; done
timeout 480 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/st -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -30
log done
