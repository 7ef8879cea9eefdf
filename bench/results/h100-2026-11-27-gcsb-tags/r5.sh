#!/usr/bin/env bash
# Device run 5: the warp walk reads an output block's tasks at a fixed stride (padded with empty
# tasks) where every output block has at most a turn of blocks, instead of loading its range
# first (r4's profile: one of the dependent loads the warps wait on). Module A/B: .ab/c1 (HEAD
# 206fe21) against .ab/FIX; zsparse spmv --check with .ab/FIX; the whole suite against .ab/FIX.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 stencil3d:n=160,points=27,$R
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f64.zsm:N $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T)
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/c1 .ab/FIX -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -8
log "A/B done"
for c in lap2d-f64:T st27-f64:T; do
  ZS_MODULE_DIR=$PWD/.ab/FIX timeout 40 $Z spmv $B/${c%%:*}.zsm --backend cuda --op ${c##*:} --check --repeat 3 > $OUT/check.txt 2>&1
  echo "check $c rc $?"; tail -1 $OUT/check.txt
done
dev_build_wait
dev_tests .ab/FIX 120
log done
