#!/usr/bin/env bash
# Device run 16 (tenth session): row_nnz in 1, 2 or 4 bytes a row (the narrowest that holds the
# stream's rows; 1 byte on every suite matrix). The whole suite with the new module (.ab/rb), then
# f64 SpMV A/B: blobs with 4-byte lengths (row_bytes=4, the old layout) under HEAD's module (.ab/gs)
# and the new one, and the new module on the default (1-byte) blobs. No host checks of the big
# blobs (the suite's conformance runs every width on cuda).
# Outcome: the suite passed, but the kernels reading the width at run time (row-width-kernel.diff)
# lost 2-19 % on the same 4-byte blobs; r17 widens the lengths on upload instead. (The `wait`
# after the blobs also reaped the build's subshell, hence dev_build_wait's warning in the log.)
set -uo pipefail
. bench/device-lib.sh
dev_begin r16
dev_build_bg
dev_host_tool
B=/tmp/blobs
S=values=set,distinct=64,seed=42 R=values=random,seed=42
S3=stencil3d:n=160,points=27 BD=banded:rows=8388608,width=128,per_row=20 L2=stencil2d:n=4096,points=5
dev_gen dtans st27s f64 "$S3,$S" bands f64 "$BD,$S" laps f64 "$L2,$S" lapr f64 "$L2,$R" st27r f64 "$S3,$R" &
dev_gen dtans:row_bytes=4 st27s-4 f64 "$S3,$S" bands-4 f64 "$BD,$S" laps-4 f64 "$L2,$S" lapr-4 f64 "$L2,$R" st27r-4 f64 "$S3,$R" &
wait
log "blobs done"
du -b "$B"/*.zsm | tee "$OUT/blobs.txt"
dev_build_wait
dev_tests .ab/rb 170
log "tests done"
C4=() C1=()
for c in st27s bands laps lapr st27r; do C4+=("$B/$c-4.zsm:N"); C1+=("$B/$c.zsm:N"); done
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/gs .ab/rb -- "${C4[@]}" > "$OUT/ab4.txt" 2>&1
echo "ab4 rc $?"; cat "$OUT/ab4.txt"
timeout 100 bash bench/ab-modules.sh -r 2 -n 20 .ab/rb -- "${C1[@]}" > "$OUT/ab1.txt" 2>&1
echo "ab1 rc $?"; cat "$OUT/ab1.txt"
log "all done"
