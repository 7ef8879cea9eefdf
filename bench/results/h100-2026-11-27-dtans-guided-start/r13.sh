#!/usr/bin/env bash
# Device run 13 (tenth session): do guided slices shrinking from the start remove the tail that
# ncu showed with the default dtANS slices (r11 of h100-2026-11-27-dtans-probe: SMs idle 13 % of
# the few-valued 3-D stencil's kernel), and at what size? f64 SpMV, HEAD's module (.ab/dynr),
# encoder settings against each other in one A/B run: the default, guided=P with P about the
# matrix's count of full slices (shrinking from the first slice), lane_symbols=512 and 256.
# Raw-valued blobs with guided slices take tickets (operator option raw_slices=tickets), which the
# default rule gives only to slices that need three rounds or more. No host checks here (minutes
# per 10^8-nonzero blob); sizes are measured on the development machine (r13-sizes.txt).
set -uo pipefail
. bench/device-lib.sh
dev_begin r13
dev_host_tool
B=/tmp/blobs
S=values=set,distinct=64,seed=42 R=values=random,seed=42
S3=stencil3d:n=160,points=27 BD=banded:rows=8388608,width=128,per_row=20
L2=stencil2d:n=4096,points=5 ER=erdos_renyi:rows=4194304,per_row=16
dev_gen dtans st27s f64 "$S3,$S" bands f64 "$BD,$S" laps f64 "$L2,$S" st27r f64 "$S3,$R" bandr f64 "$BD,$R" err f64 "$ER,$R" &
dev_gen dtans:guided=3300 st27s-g f64 "$S3,$S" st27r-g f64 "$S3,$R" &
dev_gen dtans:guided=5000 bands-g f64 "$BD,$S" bandr-g f64 "$BD,$R" &
dev_gen dtans:guided=2500 laps-g f64 "$L2,$S" &
dev_gen dtans:guided=2000 err-g f64 "$ER,$R" &
wait
log "blobs 1 done"
dev_gen dtans:lane_symbols=512 st27s-512 f64 "$S3,$S" bands-512 f64 "$BD,$S" st27r-512 f64 "$S3,$R" &
dev_gen dtans:lane_symbols=256 st27s-256 f64 "$S3,$S" bands-256 f64 "$BD,$S" laps-256 f64 "$L2,$S" st27r-256 f64 "$S3,$R" bandr-256 f64 "$BD,$R" err-256 f64 "$ER,$R" &
wait
log "blobs 2 done"
du -m "$B"/*.zsm | tee "$OUT/blobs.txt"
C=()
for c in st27s st27s-g st27s-512 st27s-256 bands bands-g bands-512 bands-256 laps laps-g laps-256; do C+=("$B/$c.zsm:N"); done
for c in st27r st27r-512 st27r-256 bandr bandr-256 err err-256; do C+=("$B/$c.zsm:N"); done
for c in st27r st27r-g bandr bandr-g err err-g st27r-512; do C+=("$B/$c.zsm:N:raw_slices=tickets"); done
timeout 400 bash bench/ab-modules.sh -r 2 -n 20 .ab/dynr -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
