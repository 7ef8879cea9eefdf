#!/usr/bin/env bash
# Device run 7: the team kernels of the warp walk cut for 9 blocks of 128 threads per SM
# (__launch_bounds__(128, 9): f64 64 / 62 registers -> 56). Module A/B, no check step: .ab/fin
# (the committed tree, meson build) against .ab/lb9 (that change, nvcc sm_90), both built on the
# development machine; the 2-D stencil (four teams) and the banded matrix (two teams), f64.
set -uo pipefail
. bench/device-lib.sh
dev_begin r7
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,points=5,$R --type f64 -f gcsb -o $B/lap2d-f64.zsm >/dev/null & g+=($!)
$Z gen banded:rows=8388608,width=128,per_row=20,$R --type f64 -f gcsb -o $B/band-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:N $B/lap2d-f64.zsm:T $B/band-f64.zsm:N $B/band-f64.zsm:T)
timeout 300 bash bench/ab-modules.sh -r 2 -n 20 .ab/fin .ab/lb9 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -8
log done
