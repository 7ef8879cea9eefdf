#!/usr/bin/env bash
# Device run 1: L2 prefetches in the warp walk (cp.async.bulk.prefetch.L2, no register held).
# Module A/B, nvcc sm_90 on the development machine: .ab/base (HEAD 7b38656), .ab/pf1 (each
# lane prefetches its block's values and indices past the turn's first load of pieces),
# .ab/pf2 (the whole block), .ab/ah8 / .ab/ah16 (a team loads the tasks of the output block
# 8192 / 16384 ahead and prefetches their elements), .ab/pf1ah8 (both). Then zsparse spmv --check
# with .ab/pf1ah8 (a prefetch is a hint: it cannot change a result, but a bad address could fault).
# Modules: bash bench/module-variant.sh NAME bench/results/h100-2026-11-27-gcsb-prefetch/l2-prefetch-tried.diff
# -- FLAGS, with pf1: -DZS_CSB_PF=1, pf2: -DZS_CSB_PF=2, ah8: -DZS_CSB_AHEAD=8192, ah16:
# -DZS_CSB_AHEAD=16384, pf1ah8: -DZS_CSB_PF=1 -DZS_CSB_AHEAD=8192; base: no diff, no flags.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/lap2d-f64.zsm:N $B/st27-f64.zsm:T)
M=(.ab/base .ab/pf1 .ab/pf2 .ab/ah8 .ab/pf1ah8 .ab/ah16)
timeout 470 bash bench/ab-modules.sh -r 2 -n 20 "${M[@]}" -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -12
log "A/B done"
for c in lap2d-f64:T lap2d-f32:N st27-f64:T; do
  ZS_MODULE_DIR=$PWD/.ab/pf1ah8 timeout 60 $Z spmv $B/${c%%:*}.zsm --backend cuda --op ${c##*:} --check > $OUT/check-$c.txt 2>&1
  echo "check $c rc $?"; tail -2 $OUT/check-$c.txt
done
log done
