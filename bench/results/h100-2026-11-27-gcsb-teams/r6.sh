#!/usr/bin/env bash
# Device run 6: teams for split output blocks (pruned layers: two walks per warp, the automatic
# split count doubled), .ab/st, against .ab/t48 (one walk per warp when split, as at HEAD);
# every product checked before its timing. In the background the tree is built here with CUDA
# for the csb, gpu and conformance suites (new conformance variants: split with 1 and 4 teams,
# unsplit with 1).
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?" >> $OUT/gpu-build.log) &
bp=$!
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
C=()
for t in f64 f32; do
  $Z gen erdos_renyi:rows=16384,p=0.01,$R --type $t -f gcsb -o $B/l1-$t.zsm >/dev/null
  $Z gen erdos_renyi:rows=16384,p=0.05,$R --type $t -f gcsb -o $B/l5-$t.zsm >/dev/null
  $Z gen erdos_renyi:rows=8192,p=0.05,$R --type $t -f gcsb -o $B/l8-$t.zsm >/dev/null
  for l in l1 l5 l8; do C+=($B/$l-$t.zsm:N $B/$l-$t.zsm:T); done
done
log "blobs done"
bash bench/ab-modules.sh -c -r 2 -n 100 .ab/t48 .ab/st -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log "A/B done"
wait $bp
tail -1 $OUT/gpu-build.log
meson test -C build-gpu --suite csb --suite gpu --suite conformance > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
