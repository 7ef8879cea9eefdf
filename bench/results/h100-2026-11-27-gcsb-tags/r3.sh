#!/usr/bin/env bash
# Device run 3: SpMVT's block search as a binary search of the team's ends (log2 L dependent
# shuffles) instead of a ballot and an OR per piece, for teams of at most 8 lanes (.ab/BS8) or 16
# (.ab/BS16), against .ab/c1 (HEAD 206fe21); nvcc sm_90 on the development machine. Then the
# whole suite against .ab/BS16 (both searches run there), the pruned layers' bench with .ab/c1
# (split walks, one team: no change), and the 2-D stencil's bench with the faster module on it.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_bg
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 band-f64 f64 banded:rows=8388608,width=128,per_row=20,$R
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/band-f64.zsm:T)
timeout 200 bash bench/ab-modules.sh -r 2 -n 20 .ab/c1 .ab/BS8 .ab/BS16 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -6
PICK=$(grep lap2d $OUT/ab.txt | awk '{for (i = 2; i < NF; i += 2) s[$i] += $(i + 1)} END {for (m in s) print s[m], m}' | sort -n | head -1 | cut -d' ' -f2)
log "A/B done, faster on the 2-D stencil: ${PICK:=.ab/c1}"
dev_build_wait
dev_tests .ab/BS16 150
log "tests done"
ZS_MODULE_DIR=$PWD/.ab/c1 timeout 60 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/layers.csv --md $OUT/layers.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/layers.log 2>&1
echo "layers rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/layers.log | cut -c1-110
log "layers done"
ZS_MODULE_DIR=$PWD/$PICK timeout 120 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R > $OUT/bench.log 2>&1
echo "bench ($PICK) rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-110
log done
