#!/usr/bin/env bash
# Device run 5: stop 34's nit mended (csb_gpu_create sizes the tagged CSB-baseline index copy with
# the `count ? count : 1` guard). .ab/nit: this tree, bash bench/module-variant.sh nit. A
# CSB-baseline blob (the copy this allocation serves) checked in both ops, then the whole suite.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_host_tool
R=values=random,seed=42
dev_gen csb lap2d-f64 f64 stencil2d:n=1024,points=5,$R st27-f32 f32 stencil3d:n=64,points=27,$R
log "blobs done"
for c in lap2d-f64:N lap2d-f64:T st27-f32:N st27-f32:T; do
  ZS_MODULE_DIR=$PWD/.ab/nit timeout 40 "$Z" spmv "$B/${c%%:*}.zsm" --backend cuda --op "${c##*:}" --check --repeat 3 > "$OUT/check.txt" 2>&1
  echo "check $c rc $?"; tail -1 "$OUT/check.txt" | cut -c1-160
done
dev_build_wait
dev_tests .ab/nit 200
log done
