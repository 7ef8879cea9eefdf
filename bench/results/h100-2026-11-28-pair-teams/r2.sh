#!/usr/bin/env bash
# Device run 2 (fourteenth session): BiCG's pair with a team count of its own (teams_pair:
# four under 1 turn of elements per output block, two under 2; SpMV keeps 2 and 3), module .ab/pt,
# against HEAD's (.ab/mend2), where the pair took SpMV's count. Pair (transpose=atomic) on the
# matrices whose count changes or may: the 2-D stencil f32 (158 elements per output block), the
# banded f64 (320), Erdos-Renyi and R-MAT (~256). No -c: the suite (conformance runs the pair on
# every variant) and the bench (both outputs checked) check the module. Then the bench with
# cuSPARSE beside on the 2-D stencil and the banded matrix.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap32 f32 stencil2d:n=4096,points=5,$R \
  band64 f64 banded:rows=8388608,width=128,per_row=20,$R \
  er64 f64 erdos_renyi:rows=4194304,per_row=16,$R er32 f32 erdos_renyi:rows=4194304,per_row=16,$R \
  rmat64 f64 rmat:scale=22,per_row=16,$R rmat32 f32 rmat:scale=22,per_row=16,$R
log "blobs made"
cases=()
for b in lap32 band64 er64 er32 rmat64 rmat32; do cases+=("$B/$b.zsm:pair:transpose=atomic"); done
timeout 200 bash bench/ab-modules.sh -r 2 -n 20 .ab/mend2 .ab/pt -- "${cases[@]}" 2>&1 |
  tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/pt 170
log "tests done"
export ZS_MODULE_DIR=$PWD/.ab/pt
timeout 150 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv "$OUT/bench.csv" \
  gen:stencil2d:n=4096,points=5,$R gen:banded:rows=8388608,width=128,per_row=20,$R \
  >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zsparse +gcsb|cusparse +csr-alg1 " "$OUT/bench.log" | cut -c1-120
log "all done"
