#!/usr/bin/env bash
# Device run 2: β for the 2-D stencil, and the teams' pieces in flight at β = 32 for f64. Blobs
# at the default β (f64 16, f32 32) and at the other one (f64 32, f32 16); module A/B of
# .ab/base (HEAD), .ab/tp4 and .ab/tp6 (ZS_CSB_TEAM_PIECES 4 and 6 instead of 5, for both
# ops), nvcc sm_90 on the development machine.
# Modules: bash bench/module-variant.sh NAME -- FLAGS (no diff), with tp4: -DZS_CSB_TEAM_PIECES=4,
# tp6: -DZS_CSB_TEAM_PIECES=6; base: no flags.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_host_tool
B=/tmp/blobs
mkdir -p $B
L2=stencil2d:n=4096,points=5,values=random,seed=42
$Z gen $L2 --type f64 -f gcsb -o $B/l2-f64-b16.zsm > /dev/null &
$Z gen $L2 --type f64 -f gcsb --options beta=32 -o $B/l2-f64-b32.zsm > /dev/null &
$Z gen $L2 --type f32 -f gcsb -o $B/l2-f32-b32.zsm > /dev/null &
$Z gen $L2 --type f32 -f gcsb --options beta=16 -o $B/l2-f32-b16.zsm > /dev/null &
wait
$Z info $B/l2-f64-b32.zsm | grep -E "^params|of CSR"
$Z info $B/l2-f32-b16.zsm | grep -E "^params|of CSR"
log "blobs done"
C=()
for b in l2-f64-b16 l2-f64-b32 l2-f32-b32 l2-f32-b16; do C+=("$B/$b.zsm:N" "$B/$b.zsm:T"); done
timeout 420 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/tp4 .ab/tp6 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -16
log done
