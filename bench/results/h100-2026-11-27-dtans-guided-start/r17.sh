#!/usr/bin/env bash
# Device run 17 (tenth session): r16 again, with the GPU module widening row_nnz to 4 bytes when
# it loads a blob (.ab/rw, kernels as HEAD's), since r16's kernels reading the width at run time
# lost 2-19 %. The whole suite, then f64 SpMV A/B: blobs with 4-byte lengths (row_bytes=4, the old
# layout) under HEAD's module (.ab/gs) and the new one, and the new one on the default (1-byte)
# blobs. No host checks of the big blobs (the suite's conformance runs every width on cuda).
set -uo pipefail
. bench/device-lib.sh
dev_begin r17
dev_host_tool
B=/tmp/blobs
S=values=set,distinct=64,seed=42 R=values=random,seed=42
S3=stencil3d:n=160,points=27 BD=banded:rows=8388608,width=128,per_row=20 L2=stencil2d:n=4096,points=5
dev_gen dtans st27s f64 "$S3,$S" bands f64 "$BD,$S" laps f64 "$L2,$S" lapr f64 "$L2,$R" st27r f64 "$S3,$R" &
p1=$!
dev_gen dtans:row_bytes=4 st27s-4 f64 "$S3,$S" bands-4 f64 "$BD,$S" laps-4 f64 "$L2,$S" lapr-4 f64 "$L2,$R" st27r-4 f64 "$S3,$R" &
p2=$!
dev_build_bg
wait "$p1" "$p2"
log "blobs done"
du -b "$B"/*.zsm | tee "$OUT/blobs.txt"
dev_build_wait
dev_tests .ab/rw 170
log "tests done"
C4=() C1=()
for c in st27s bands laps lapr st27r; do C4+=("$B/$c-4.zsm:N"); C1+=("$B/$c.zsm:N"); done
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/gs .ab/rw -- "${C4[@]}" > "$OUT/ab4.txt" 2>&1
echo "ab4 rc $?"; cat "$OUT/ab4.txt"
timeout 100 bash bench/ab-modules.sh -r 2 -n 20 .ab/rw -- "${C1[@]}" > "$OUT/ab1.txt" 2>&1
echo "ab1 rc $?"; cat "$OUT/ab1.txt"
log "all done"
