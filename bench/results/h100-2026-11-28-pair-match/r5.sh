#!/usr/bin/env bash
# Device run 5 (twelfth session): eight output blocks per warp in the warp walk (det_teams=8,
# teams of 4 lanes; auto for output blocks under one turn of elements, as the 2-D stencil's f64
# blocks of 16 with ~80). r4 showed the time falling from one to two to four teams on the 2-D
# stencil. A/B of HEAD's module (.ab/mend2) against .ab/teams8 on the f64 2-D stencil (N, T, the
# pair), then det_teams=8 forced on the f32 one; conformance on the random matrices in GCSB and
# CSB with .ab/teams8 (its variants force 8 teams, for the products and the fused pair).
# Eight teams lost 14-25 %, not kept (eight-teams-tried.diff). The second A/B's 50-second limit
# cut it before lap32 T with det_teams=8.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >"$OUT/gpu-build.log" 2>&1 &&
  ninja -C build-gpu tests/conformance/conformance >>"$OUT/gpu-build.log" 2>&1) &
build=$!
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R
log "blobs made"
timeout 100 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/teams8 -- "$B/lap64.zsm:N" \
  "$B/lap64.zsm:T" "$B/lap64.zsm:pair:transpose=atomic" 2>&1 | tee "$OUT/ab.txt"
timeout 50 bash bench/ab-modules.sh -c -r 1 -n 20 .ab/teams8 -- "$B/lap32.zsm:N" "$B/lap32.zsm:T" \
  "$B/lap32.zsm:N:det_teams=8" "$B/lap32.zsm:T:det_teams=8" 2>&1 | tee -a "$OUT/ab.txt"
log "a/b done"
wait $build
echo "conformance build rc $?"
ZS_MODULE_DIR=$PWD/.ab/teams8 timeout 60 build-gpu/tests/conformance/conformance --require cuda \
  --format gcsb --format csb --random-only > "$OUT/conformance.txt" 2>&1
echo "conformance (gcsb, csb, random matrices) rc $?: $(tail -n 1 "$OUT/conformance.txt")"
grep -c 'cuda\[pair-walk-8-teams\]' "$OUT/conformance.txt"
log "all done"
