#!/usr/bin/env bash
# Device run 1 (2026-11-27, fifth session): the unsplit GCSB warp walk with persistent warps that
# load the next unit's block range and first tasks while they walk this one (ZS_CSB_PERSIST).
# Module A/B, every product checked first: .ab/base (HEAD c1f11b9, meson build on the development machine), .ab/np
# (this tree, ZS_CSB_PERSIST=0: a warp per unit, as before), .ab/ps (this tree, persistent),
# .ab/pl (persistent, registers cut for 7 blocks of 128 threads per SM: ZS_CSB_WALK_MIN_BLOCKS);
# nvcc sm_90 on the development machine.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
for t in f64 f32; do
  $Z gen stencil2d:n=4096,points=5,$R --type $t -f gcsb -o $B/lap2d-$t.zsm >/dev/null & g+=($!)
  $Z gen stencil3d:n=160,points=27,$R --type $t -f gcsb -o $B/st27-$t.zsm >/dev/null & g+=($!)
done
$Z gen banded:rows=8388608,width=128,per_row=20,$R --type f64 -f gcsb -o $B/band-f64.zsm >/dev/null & g+=($!)
$Z gen erdos_renyi:rows=16384,p=0.05,$R --type f64 -f gcsb -o $B/l5-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=()
for f in lap2d-f64 lap2d-f32 st27-f64; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
C+=($B/st27-f32.zsm:N $B/band-f64.zsm:N $B/l5-f64.zsm:N)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/np .ab/ps .ab/pl -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -20
log "A/B done"
log done
