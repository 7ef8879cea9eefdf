#!/usr/bin/env bash
# Device run 4 (thirteenth session): the 2-D stencil f64 encoded with blocks of 32 (encoder option
# beta=32; the default takes 16 for it) under HEAD's module: its output blocks then hold 158
# elements in 3 blocks, the shape f32 walks at 6 bytes a nonzero (N 295, T 344 µs). Last
# measured before the warp walk had teams. Deterministic N and T, auto and two teams, checked
# first; zsparse spmv, median µs, two rounds.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
R=values=random,seed=42
# in the foreground: dev_gen sets B (a first try ran them with & and lost it)
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R
dev_gen gcsb:beta=32 lap64b32 f64 stencil2d:n=4096,points=5,$R
log "blobs made"
timeout 200 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 -- "$B/lap64.zsm:N" "$B/lap64.zsm:T" \
  "$B/lap64b32.zsm:N" "$B/lap64b32.zsm:T" "$B/lap64b32.zsm:N:det_teams=2" \
  "$B/lap64b32.zsm:T:det_teams=2" 2>&1 | tee "$OUT/ab.txt"
log "all done"
