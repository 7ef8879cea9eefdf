#!/usr/bin/env bash
# Device run 4: eight teams (4 lanes each) against four in the GCSB warp walk, on the 2-D
# stencil f64 and f32; one module (.ab/t48, the tree with det_teams=8 allowed), every product
# checked before its timing.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,$R --type f64 -f gcsb -o $B/lap2d.zsm >/dev/null & g+=($!)
$Z gen stencil2d:n=4096,$R --type f32 -f gcsb -o $B/lap2df.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/t48 -- \
  $B/lap2d.zsm:N:det_teams=4 $B/lap2d.zsm:N:det_teams=8 $B/lap2d.zsm:T:det_teams=4 $B/lap2d.zsm:T:det_teams=8 \
  $B/lap2df.zsm:N:det_teams=4 $B/lap2df.zsm:N:det_teams=8 > $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log done
