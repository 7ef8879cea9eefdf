#!/usr/bin/env bash
# Device run 6: a prototype of SpMV's four-team warp walk whose groups of output blocks have their
# elements copied into shared memory by cp.async a group ahead (and the next tasks and ranges
# loaded ahead), persistent warps (`staged-spmv-prototype.diff`). Module A/B with every product
# checked first (-c): .ab/c2 (HEAD ce6fac5's module) against .ab/stg.
# Modules: bash bench/module-variant.sh stg
# bench/results/h100-2026-11-27-gcsb-prefetch/staged-spmv-prototype.diff -- -DZS_CSB_STAGED=1;
# .ab/c2: `ninja -C build` at ce6fac5, backends/cuda/libzsparse-cuda.so copied.
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2
log "blobs done"
timeout 200 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/c2 .ab/stg -- "$B/lap2d-f64.zsm:N" "$B/lap2d-f32.zsm:N" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; tail -8 "$OUT/ab.txt"
log done
