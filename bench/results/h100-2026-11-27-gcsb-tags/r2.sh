#!/usr/bin/env bash
# Device run 2: SpMVT variants, module A/B (nvcc sm_90 on the development machine):
# .ab/c1 (HEAD 206fe21: SpMV tags), .ab/Tinc (SpMVT's block search counts the blocks started
# before each piece instead of a ballot per piece), .ab/W16 (16-byte tasks for f32 too),
# .ab/TW16 (both). The module with the least sum of medians then runs the whole test suite
# and one bench run with cuSPARSE beside (stencils and the banded matrix, random values).
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3 st27-f32 f32 $S3
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T $B/st27-f32.zsm:T $B/lap2d-f32.zsm:N)
M=(.ab/c1 .ab/Tinc .ab/W16 .ab/TW16)
timeout 290 bash bench/ab-modules.sh -r 2 -n 20 "${M[@]}" -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -10
PICK=$(awk '{for (i = 2; i < NF; i += 2) s[$i] += $(i + 1)} END {for (m in s) print s[m], m}' $OUT/ab.txt | sort -n | head -1 | cut -d' ' -f2)
log "A/B done, picked ${PICK:=.ab/c1}"
dev_build_wait
dev_tests $PICK 150
export ZS_MODULE_DIR=$PWD/$PICK
log "tests done"
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
  gen:banded:rows=8388608,width=128,per_row=20,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-110
log done
