#!/usr/bin/env bash
# Device run 6: the split warp walk loads the next turn's tasks before this turn's elements.
# Module A/B, .ab/final (3510f29, meson build on the development machine) against .ab/pf (this
# tree, nvcc sm_90), on the three pruned-layer matrices, f64 and f32, N and T; every product
# checked first. Then one bench run with cuSPARSE beside on the layers with .ab/pf, and the whole
# test suite against .ab/pf (everything but the module built here).
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
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
bash bench/ab-modules.sh -c -r 2 -n 100 .ab/final .ab/pf -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; cat $OUT/ab.txt
log "A/B done"
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/pf
timeout 100 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-100
log "bench done"
timeout 200 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
