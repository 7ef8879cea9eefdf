#!/usr/bin/env bash
# Device run 7 (ninth session): slicings with the committed module (.ab/dynr, HEAD 48fbe06's
# kernels): the random-valued 2-D stencil (its default 4096 slices at the 128-row cap, and
# rows_per_lane=64 / 32), each with the operator's rule and with tickets forced; and the
# few-valued 3-D stencil and banded matrix (joint values) with the default lanes and with
# lane_symbols=256. Timed without checks (the blobs are 10^8 nonzeros; r5's suite checked the
# module).
set -uo pipefail
. bench/device-lib.sh
dev_begin r7
dev_host_tool
R=values=random,seed=42 S=values=set,distinct=64,seed=42
L2=stencil2d:n=4096,points=5 S3=stencil3d:n=160,points=27 BD=banded:rows=8388608,width=128,per_row=20
g() { "$Z" gen "$2" --type f64 -f dtans ${3:+--options "$3"} -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
g lap "$L2,$R"; g lap-r64 "$L2,$R" rows_per_lane=64; g lap-r32 "$L2,$R" rows_per_lane=32
g st27s "$S3,$S"; g st27s-256 "$S3,$S" lane_symbols=256; g bands "$BD,$S"; g bands-256 "$BD,$S" lane_symbols=256
wait
log "blobs done"
for f in "$B"/*.zsm; do printf '%s ' "${f##*/}"; "$Z" info "$f" | grep -o 'slices=[0-9]*'; done
T=raw_slices=tickets
C=("$B/lap.zsm:N" "$B/lap.zsm:N:$T" "$B/lap.zsm:N:$T,raw_blocks=3" "$B/lap-r64.zsm:N" "$B/lap-r64.zsm:N:$T,raw_blocks=3"
  "$B/lap-r32.zsm:N" "$B/st27s.zsm:N" "$B/st27s-256.zsm:N" "$B/bands.zsm:N" "$B/bands-256.zsm:N")
timeout 400 bash bench/ab-modules.sh -r 2 -n 20 .ab/dynr -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
