#!/usr/bin/env bash
# Device run 5: the teams kernels held to 64 registers (__launch_bounds__ with 8 blocks per SM:
# f64 70 -> 64 registers, 4 bytes spilled; 8 blocks of 4 warps per SM instead of 7), .ab/lb8,
# against the same tree without the bound, .ab/t48; every product checked before its timing.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,$R --type f64 -f gcsb -o $B/lap2d.zsm >/dev/null & g+=($!)
$Z gen stencil2d:n=4096,$R --type f32 -f gcsb -o $B/lap2df.zsm >/dev/null & g+=($!)
$Z gen banded:rows=8388608,width=128,per_row=20,$R --type f64 -f gcsb -o $B/band.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/t48 .ab/lb8 -- \
  $B/lap2d.zsm:N $B/lap2d.zsm:T $B/band.zsm:N $B/lap2df.zsm:N > $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log done
