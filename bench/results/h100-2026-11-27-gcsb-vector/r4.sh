#!/usr/bin/env bash
# Device run 4: the warp walk's element loads past L1. Module A/B, every module checked first
# (-c): .ab/base (HEAD's kernels), and element-loads.diff built with
# -DZS_CSB_ELEM_LOAD(p)=__ldcg(p) (.ab/cg: cached in L2 only) and =__ldcs(p) (.ab/cs: evict-first).
# Modules: bash bench/module-variant.sh NAME bench/results/h100-2026-11-27-gcsb-vector/element-loads.diff
# -- '-DZS_CSB_ELEM_LOAD(p)=__ldcg(p)'; base: no diff.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3
log "blobs done"
C=()
for c in lap2d-f64:N lap2d-f64:T lap2d-f32:N lap2d-f32:T st27-f64:N st27-f64:T; do C+=("$B/${c%%:*}.zsm:${c##*:}"); done
timeout 420 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/cg .ab/cs -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -14
log done
