#!/usr/bin/env bash
# Device run 14 (tenth session): the tree with encoder option guided=start (slices shrink from the
# first) and raw-value slices from tickets where the blob records guided slices, module .ab/gs
# (bash bench/module-variant.sh gs). The whole suite first, then the bench with cuSPARSE beside,
# random values, f64 on the five suite matrices, then f32 on the 3-D stencil and banded matrix:
# dtANS with the default encoding, guided=start and lane_symbols=256. (It ran with the four steps
# that dev_build_and_test, written after the run, now takes.)
set -uo pipefail
. bench/device-lib.sh
dev_begin r14
dev_build_and_test .ab/gs 170
R=values=random,seed=42
F=(--no-cold --reps 10 --format dtans --format dtans:guided=start --format dtans:lane_symbols=256)
timeout 200 build-gpu/bench/gpu/zs-bench-gpu "${F[@]}" --types f64 --csv "$OUT/bench64.csv" --md "$OUT/bench64.md" \
  gen:stencil3d:n=160,points=27,$R gen:banded:rows=8388608,width=128,per_row=20,$R \
  gen:stencil2d:n=4096,points=5,$R gen:erdos_renyi:rows=4194304,per_row=16,$R gen:rmat:scale=22,per_row=16,$R \
  > "$OUT/bench64.log" 2>&1
echo "bench f64 rc $?"; tail -12 "$OUT/bench64.md"
log "f64 done"
timeout 100 build-gpu/bench/gpu/zs-bench-gpu "${F[@]}" --types f32 --csv "$OUT/bench32.csv" --md "$OUT/bench32.md" \
  gen:stencil3d:n=160,points=27,$R gen:banded:rows=8388608,width=128,per_row=20,$R > "$OUT/bench32.log" 2>&1
echo "bench f32 rc $?"; tail -6 "$OUT/bench32.md"
log "all done"
