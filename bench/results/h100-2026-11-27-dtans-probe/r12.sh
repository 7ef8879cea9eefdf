#!/usr/bin/env bash
# Device run 12 (ninth session): r11's profile showed the few-valued 3-D stencil's SMs idle for
# 13 % of the kernel with the default slices (SM active cycles 448 k of 517 k elapsed; 98 % with
# lane_symbols=256): a tail. Guided slices shrinking from the start (guided = about the matrix's
# count of full slices, so every slice takes 1/P of what is left) against the default (guided=2048)
# and lane_symbols=256, few-valued f64 SpMV, HEAD's module (.ab/dynr), no checks; sizes by zsparse info.
# Outcome: the call ran past its 420 s in the size loop (two `zsparse info` calls per 10^8-nonzero
# blob, ~50 s each there) after four blobs' sizes; nothing was timed, and the session's device
# time was spent. The sizes it printed are in bench/NOTES.md.
set -uo pipefail
. bench/device-lib.sh
dev_begin r12
dev_host_tool
S=values=set,distinct=64,seed=42
S3=stencil3d:n=160,points=27,$S BD=banded:rows=8388608,width=128,per_row=20,$S L2=stencil2d:n=4096,points=5,$S
g() { "$Z" gen "$2" --type f64 -f dtans ${3:+--options "$3"} -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
g st27 "$S3"; g st27-g3300 "$S3" guided=3300; g st27-256 "$S3" lane_symbols=256
g band "$BD"; g band-g5000 "$BD" guided=5000; g lap "$L2"; g lap-g2500 "$L2" guided=2500
wait
log "blobs done"
for f in "$B"/*.zsm; do
  printf '%s %s %s\n' "${f##*/}" "$("$Z" info "$f" | grep -o 'slices=[0-9]*')" "$("$Z" info "$f" | grep -E 'stream_over_bound|^total' | tr -s ' ' | tr '\n' ' ')"
done
C=()
for c in st27 st27-g3300 st27-256 band band-g5000 lap lap-g2500; do C+=("$B/$c.zsm:N"); done
timeout 300 bash bench/ab-modules.sh -r 2 -n 20 .ab/dynr -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
