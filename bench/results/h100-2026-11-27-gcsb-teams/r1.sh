#!/usr/bin/env bash
# Device run 1 (2026-11-27, third session): the GCSB warp walk with two output blocks per warp
# (det_teams) and 16-byte f64 tasks. The tree is built here with CUDA for the csb, gpu and
# conformance suites, in the background of a module A/B: .ab/base (HEAD 45dbf5d: 24-byte tasks,
# one output block per warp), .ab/teams (this tree), .ab/tp5 (this tree, 5 pieces per team lane);
# every product checked before its timing.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?" >> $OUT/gpu-build.log) &
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,$R --type f64 -f gcsb -o $B/lap2d.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f32 -f gcsb -o $B/st27f.zsm >/dev/null & g+=($!)
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=()
for f in lap2d st27 st27f l1; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/teams .ab/tp5 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -12
log "A/B done"
# the same module, one output block per warp against two (st27: forced, auto takes one)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/teams -- $B/lap2d.zsm:N:det_teams=1 $B/lap2d.zsm:N:det_teams=2 \
  $B/lap2d.zsm:T:det_teams=1 $B/st27.zsm:N:det_teams=2 > $OUT/ab-opts.txt 2>&1
echo "ab-opts rc $?"; grep -v "^ok" $OUT/ab-opts.txt | tail -8
log "A/B options done"
wait
tail -1 $OUT/gpu-build.log
meson test -C build-gpu --suite csb --suite gpu --suite conformance > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
