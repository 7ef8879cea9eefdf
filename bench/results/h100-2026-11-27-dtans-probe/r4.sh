#!/usr/bin/env bash
# Device run 4 (ninth session): the runtime rule for raw values (tickets where the slices need
# three rounds or more of the 4-block kernel; then f64 takes the 3-block kernel, f32 the 4-block
# one). .ab/base = HEAD; .ab/dynr = the working tree (bench/module-variant.sh dynr). Checked first
# on a 3-D stencil small enough for the host check, SpMV and atomic SpMVT, f64 and f32 (meant to
# be sliced past the threshold, but lane_symbols=27 gave 5805 slices, under it: this check ran
# the fixed stride; the ticket path was checked in r5's suite, through raw_slices=tickets); then
# timed without checks on the large blobs at lane_symbols=256 and the default 1024.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
R=values=random,seed=42
S3=stencil3d:n=160,points=27,$R BD=banded:rows=8388608,width=128,per_row=20,$R
L2=stencil2d:n=4096,points=5,$R SM=stencil3d:n=70,points=27,$R
g() { "$Z" gen "$2" --type "$3" -f dtans --options "lane_symbols=$4" -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
g st27-256 "$S3" f64 256; g st27f-256 "$S3" f32 256; g st27-1024 "$S3" f64 1024
g band-256 "$BD" f64 256; g bandf-256 "$BD" f32 256
g lap-256 "$L2" f64 256; g lapf-256 "$L2" f32 256
g sm "$SM" f64 27; g smf "$SM" f32 27
wait
log "blobs done"
for f in "$B"/*.zsm; do printf '%s ' "${f##*/}"; "$Z" info "$f" | grep -o 'slices=[0-9]*'; done
timeout 150 bash bench/ab-modules.sh -c -r 1 -n 5 .ab/base .ab/dynr -- "$B/sm.zsm:N" "$B/sm.zsm:T:transpose=atomic" \
  "$B/smf.zsm:N" "$B/smf.zsm:T:transpose=atomic" > "$OUT/check.txt" 2>&1
echo "check rc $?"; grep -c '^ok' "$OUT/check.txt"
C=()
for c in st27-256 st27f-256 band-256 bandf-256 lap-256 lapf-256 st27-1024; do C+=("$B/$c.zsm:N"); done
timeout 330 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/dynr -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
