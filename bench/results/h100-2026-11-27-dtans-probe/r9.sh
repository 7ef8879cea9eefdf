#!/usr/bin/env bash
# Device run 9 (ninth session): r1's probe again with small lanes. .ab/dynr = HEAD's kernels;
# .ab/p1 = probe.diff built from HEAD with -DZS_DT_PROBE=1 (no x gathers; the decoded column still
# feeds the sum). Few-valued 3-D stencil and banded matrix, f64 SpMV, default lanes and
# lane_symbols=256. No checks: the probe's products are wrong on purpose.
set -uo pipefail
. bench/device-lib.sh
dev_begin r9
dev_host_tool
S=values=set,distinct=64,seed=42
S3=stencil3d:n=160,points=27,$S BD=banded:rows=8388608,width=128,per_row=20,$S
g() { "$Z" gen "$2" --type f64 -f dtans ${3:+--options "$3"} -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
g st27s "$S3"; g st27s-256 "$S3" lane_symbols=256; g bands "$BD"; g bands-256 "$BD" lane_symbols=256
wait
log "blobs done"
C=()
for c in st27s st27s-256 bands bands-256; do C+=("$B/$c.zsm:N"); done
timeout 300 bash bench/ab-modules.sh -r 2 -n 20 .ab/dynr .ab/p1 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
