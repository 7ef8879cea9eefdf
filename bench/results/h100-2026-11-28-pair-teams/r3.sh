#!/usr/bin/env bash
# Device run 3 (fourteenth session): r2's module broke a promise (the pair's y has zs_spmv's
# bits: conformance-cuda failed) because the pair walked with other teams than the SpMV. Now an
# operator created with transpose=atomic (the one whose SpMV walk serves the pair) takes the
# pair's team count for its SpMV too: four under 1 turn (128 elements per output block), two under
# 2.25 (288); deterministic operators keep 2 and 3 turns. Module .ab/at against HEAD's
# (.ab/mend2): the pair and the SpMV alone of such an operator on the two matrices whose count
# changes (2-D stencil f32 158 -> two teams, banded f64 320 -> one), then the suite with .ab/at,
# then the bench with cuSPARSE beside on both matrices.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap32 f32 stencil2d:n=4096,points=5,$R band64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs made"
cases=()
for b in lap32 band64; do
  cases+=("$B/$b.zsm:pair:transpose=atomic" "$B/$b.zsm:N:transpose=atomic")
done
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/mend2 .ab/at -- "${cases[@]}" 2>&1 |
  tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/at 170
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "tests done"
export ZS_MODULE_DIR=$PWD/.ab/at
timeout 150 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv "$OUT/bench.csv" \
  gen:stencil2d:n=4096,points=5,$R gen:banded:rows=8388608,width=128,per_row=20,$R \
  >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb|cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-120
log "all done"
