#!/usr/bin/env bash
# Device run 15 (tenth session): with guided=start, raw-value slices go by tickets (the blob
# records `guided`). Is that the better order on every matrix, or do the 2-D stencil's and
# Erdős–Rényi's losses in r14 come from it? f64 SpMV of guided=start blobs, module .ab/gs, each
# with the default order (tickets) and raw_slices=stride, and the default blobs beside them.
set -uo pipefail
. bench/device-lib.sh
dev_begin r15
dev_host_tool
B=/tmp/blobs
R=values=random,seed=42
S3=stencil3d:n=160,points=27,$R BD=banded:rows=8388608,width=128,per_row=20,$R
L2=stencil2d:n=4096,points=5,$R ER=erdos_renyi:rows=4194304,per_row=16,$R
dev_gen dtans st27 f64 "$S3" band f64 "$BD" lap f64 "$L2" er f64 "$ER" &
dev_gen dtans:guided=start st27-gs f64 "$S3" band-gs f64 "$BD" lap-gs f64 "$L2" er-gs f64 "$ER" &
wait
log "blobs done"
C=()
for m in st27 band lap er; do
  C+=("$B/$m.zsm:N" "$B/$m-gs.zsm:N" "$B/$m-gs.zsm:N:raw_slices=stride")
done
timeout 300 bash bench/ab-modules.sh -r 2 -n 20 .ab/gs -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
