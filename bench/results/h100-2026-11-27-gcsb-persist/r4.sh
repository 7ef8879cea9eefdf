#!/usr/bin/env bash
# Device run 4: r3's tail lost (fewer instructions, but its runtime-bounded loop kept 4 loads in
# flight instead of 32). Module A/B, no check step: .ab/base (HEAD c1f11b9), .ab/rs (the run skew
# with HEAD's tail), .ab/t2 (the run skew and the XOR tail fully unrolled for R = L and L / 2),
# nvcc sm_90 on the development machine.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,points=5,$R --type f64 -f gcsb -o $B/lap2d-f64.zsm >/dev/null & g+=($!)
$Z gen stencil2d:n=4096,points=5,$R --type f32 -f gcsb -o $B/lap2d-f32.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27-f64.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f32 -f gcsb -o $B/st27-f32.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:N $B/lap2d-f64.zsm:T $B/st27-f64.zsm:N $B/st27-f64.zsm:T $B/st27-f32.zsm:N $B/lap2d-f32.zsm:N)
timeout 400 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/rs .ab/t2 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -14
log done
