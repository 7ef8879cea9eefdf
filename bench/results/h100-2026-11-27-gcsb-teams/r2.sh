#!/usr/bin/env bash
# Device run 2: teams of the GCSB warp walk, 2 and 4 output blocks per warp, 5 (.ab/t5, the
# tree's default) or 8 (.ab/t8) pieces per team lane, on the 2-D stencil f64 and f32 and the
# banded f64 matrix (auto keeps one team there); every product checked before its timing. In the
# background the tree is built here with CUDA; then one bench run of the 2-D stencil with
# cuSPARSE beside, and the csb, gpu and conformance suites.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?" >> $OUT/gpu-build.log) &
bp=$!
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,$R --type f64 -f gcsb -o $B/lap2d.zsm >/dev/null & g+=($!)
$Z gen stencil2d:n=4096,$R --type f32 -f gcsb -o $B/lap2df.zsm >/dev/null & g+=($!)
$Z gen banded:rows=8388608,width=128,per_row=20,$R --type f64 -f gcsb -o $B/band.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/t5 .ab/t8 -- \
  $B/lap2d.zsm:N:det_teams=2 $B/lap2d.zsm:N:det_teams=4 $B/lap2d.zsm:T:det_teams=4 > $OUT/ab.txt 2>&1
echo "ab rc $?"
bash bench/ab-modules.sh -c -r 1 -n 20 .ab/t5 .ab/t8 -- \
  $B/lap2df.zsm:N:det_teams=1 $B/lap2df.zsm:N:det_teams=2 $B/lap2df.zsm:N:det_teams=4 \
  $B/band.zsm:N:det_teams=1 $B/band.zsm:N:det_teams=2 >> $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log "A/B done"
wait $bp
tail -1 $OUT/gpu-build.log
build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; tail -4 $OUT/bench.md
log "bench done"
meson test -C build-gpu --suite csb --suite gpu --suite conformance > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
