#!/usr/bin/env bash
# Device run 1 (again, after a fix of SpMV's run start; the first try failed its check): vector loads in the GCSB warp walk (bench/NOTES.md, "Vector loads in the warp
# walk"). Module A/B, every module checked first (-c), nvcc sm_90 on the development machine:
# .ab/base (HEAD e715183), and vector-loads.diff built with ZS_CSB_VEC_BYTES_N/T = 16 (.ab/v16:
# f64 2 slots per load, f32 4; pieces (5 + V - 1) / V), 8 (.ab/v8: f32 2 slots, f64 as HEAD),
# 16 with one piece (.ab/v16p1: -DZS_CSB_VEC_PIECES=1).
# Modules: bash bench/module-variant.sh NAME bench/results/h100-2026-11-27-gcsb-vector/vector-loads.diff
# -- -DZS_CSB_VEC_BYTES_N=B -DZS_CSB_VEC_BYTES_T=B [-DZS_CSB_VEC_PIECES=1]; base: no diff.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3 st27-f32 f32 $S3
log "blobs done"
C=()
for c in lap2d-f64:N lap2d-f64:T lap2d-f32:N lap2d-f32:T st27-f64:T st27-f32:T; do C+=("$B/${c%%:*}.zsm:${c##*:}"); done
timeout 480 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/v16 .ab/v8 .ab/v16p1 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -14
log done
