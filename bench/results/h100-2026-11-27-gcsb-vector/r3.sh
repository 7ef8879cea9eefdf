#!/usr/bin/env bash
# Device run 3: the stream walk with one load per chunk (a 16-byte record) and the tags kept in
# shared memory, built five ways (bash bench/module-variant.sh NAME -- FLAGS): .ab/st8 (8 items
# a thread), .ab/st4 (-DZS_CSB_STREAM_ITEMS=4), .ab/st8b (-DZS_CSB_STREAM_MIN_BLOCKS=5: 48
# registers), .ab/st8c (MIN_BLOCKS=8: 32 registers, spills), .ab/st4c (ITEMS=4, MIN_BLOCKS=8:
# 32 registers, no spill). Every case checked first (-c); the lap2d f64 warp walk as reference.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3
log "blobs done"
S=det_walk=stream
timeout 500 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/st8 .ab/st4 .ab/st8b .ab/st8c .ab/st4c -- \
  "$B/lap2d-f64.zsm:N" "$B/lap2d-f64.zsm:N:$S" "$B/lap2d-f32.zsm:N:$S" "$B/st27-f64.zsm:N:$S" \
  > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -30
log done
