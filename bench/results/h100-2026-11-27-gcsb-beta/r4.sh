#!/usr/bin/env bash
# Device run 4: the split warp walk without its second kernel: each output block's last warp to
# finish (a fence and a per-output-block counter) adds the parts in part order. Module A/B,
# .ab/d016 (d01641e, built with meson on the development machine) against .ab/last (this tree,
# nvcc sm_90), on the three pruned-layer matrices, f64 and f32, N and T; every product checked
# first. Then the whole test suite against .ab/last (everything but the module built here).
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_build_bg
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
bash bench/ab-modules.sh -c -r 2 -n 100 .ab/d016 .ab/last -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log "A/B done"
dev_build_wait
dev_tests .ab/last
log done
