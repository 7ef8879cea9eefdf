#!/usr/bin/env bash
# Device run 10 (ninth session): r9 with lanes of 128 symbols. .ab/dynr = HEAD's kernels;
# .ab/p1 = probe.diff built from HEAD with -DZS_DT_PROBE=1 (no x gathers; the decoded column still
# feeds the sum). Few-valued 3-D stencil and banded matrix, f64 SpMV, with
# lane_symbols=128, and the random-valued 3-D stencil at 128 and 256. No checks: the probe's products are wrong on purpose.
set -uo pipefail
. bench/device-lib.sh
dev_begin r10
dev_host_tool
S=values=set,distinct=64,seed=42
S3=stencil3d:n=160,points=27,$S BD=banded:rows=8388608,width=128,per_row=20,$S
g() { "$Z" gen "$2" --type f64 -f dtans ${3:+--options "$3"} -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g st27s-128 "$S3" lane_symbols=128; g bands-128 "$BD" lane_symbols=128
g st27r-128 "stencil3d:n=160,points=27,$R" lane_symbols=128; g st27r-256 "stencil3d:n=160,points=27,$R" lane_symbols=256
wait
log "blobs done"
C=()
for c in st27s-128 bands-128 st27r-128 st27r-256; do C+=("$B/$c.zsm:N"); done
timeout 240 bash bench/ab-modules.sh -r 2 -n 20 .ab/dynr .ab/p1 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
