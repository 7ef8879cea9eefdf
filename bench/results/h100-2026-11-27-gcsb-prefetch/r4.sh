#!/usr/bin/env bash
# Device run 4: the GCSB operator's host code with one tagging pass (indices tagged and SpMVT's
# block rows lowered in the same loop) and the byte uploads through upload_array. Module A/B:
# .ab/base (HEAD e99e31e, nvcc sm_90 here) against .ab/c2 (this tree, `ninja -C build` on the
# development machine); zsparse spmv --check with .ab/c2; the whole suite against .ab/c2.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_build_bg
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 stencil3d:n=160,points=27,$R
log "blobs done"
C=("$B/lap2d-f64.zsm:N" "$B/lap2d-f64.zsm:T" "$B/lap2d-f32.zsm:T" "$B/st27-f64.zsm:T")
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/c2 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v "^ok" "$OUT/ab.txt" | tail -8
log "A/B done"
for c in lap2d-f64:N lap2d-f64:T lap2d-f32:T st27-f64:T; do
  ZS_MODULE_DIR=$PWD/.ab/c2 timeout 40 "$Z" spmv "$B/${c%%:*}.zsm" --backend cuda --op "${c##*:}" --check --repeat 3 > "$OUT/check.txt" 2>&1
  echo "check $c rc $?"; tail -1 "$OUT/check.txt"
done
dev_build_wait
dev_tests .ab/c2 150
log done
