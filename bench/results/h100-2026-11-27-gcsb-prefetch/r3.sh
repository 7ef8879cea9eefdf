#!/usr/bin/env bash
# Device run 3: fewer instructions per piece in the warp walk (from r4's SASS of the previous
# session: a branch per piece around the sums, 64-bit x indices with a variable shift, the
# shared window's base recomputed). Module A/B, nvcc sm_90 on the development machine:
# .ab/base (HEAD), .ab/va (every piece adds to the sums, lanes past the end add 0: no branch),
# .ab/vac (va, and 32-bit x indices in the team kernels), .ab/vc (32-bit x indices alone).
# Modules (at e99e31e): bash bench/module-variant.sh NAME
# bench/results/h100-2026-11-27-gcsb-prefetch/piece-instructions-tried.diff -- FLAGS, with va:
# -DZS_V_A=1, vac: -DZS_V_A=1 -DZS_V_C=1, vc: -DZS_V_C=1; base: no diff, no flags.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3 st27-f32 f32 $S3
log "blobs done"
C=()
for c in lap2d-f64:N lap2d-f64:T lap2d-f32:N lap2d-f32:T st27-f64:T st27-f32:N; do C+=("$B/${c%%:*}.zsm:${c##*:}"); done
timeout 400 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/va .ab/vac .ab/vc -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -12
log done
