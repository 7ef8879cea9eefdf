#!/usr/bin/env bash
# Device run 5: the lanes walk (det_walk=lanes: each lane reads chunks of its own blocks) on the
# 2-D stencil, against the warp walk that auto picks there; the committed module (.ab/c2).
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2
log "blobs done"
C=()
for c in lap2d-f64:N lap2d-f64:T lap2d-f32:N lap2d-f32:T; do
  C+=("$B/${c%%:*}.zsm:${c##*:}" "$B/${c%%:*}.zsm:${c##*:}:det_walk=lanes")
done
timeout 200 bash bench/ab-modules.sh -r 2 -n 20 .ab/c2 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -16
log done
