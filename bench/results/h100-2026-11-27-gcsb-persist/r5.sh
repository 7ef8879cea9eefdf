#!/usr/bin/env bash
# Device run 5: 32-bit slots in the warp walk (one shuffle per block skew, fewer registers; the
# walk runs only below 2^31 elements). Module A/B, no check step (the suite below checks .ab/s32):
# .ab/base (HEAD c1f11b9), .ab/rs (r4's run skew for SpMV), .ab/s32 (the run skew and 32-bit
# slots), nvcc sm_90 on the development machine. Then the whole test suite against .ab/s32.
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
for t in f64 f32; do
  $Z gen stencil2d:n=4096,points=5,$R --type $t -f gcsb -o $B/lap2d-$t.zsm >/dev/null & g+=($!)
  $Z gen stencil3d:n=160,points=27,$R --type $t -f gcsb -o $B/st27-$t.zsm >/dev/null & g+=($!)
done
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/st27-f64.zsm:T $B/lap2d-f32.zsm:T $B/st27-f32.zsm:T $B/lap2d-f64.zsm:N $B/st27-f64.zsm:N $B/l1-f64.zsm:N $B/l1-f64.zsm:T)
timeout 330 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/rs .ab/s32 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -16
log "A/B done"
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/s32
dev_tests .ab/s32
log done
