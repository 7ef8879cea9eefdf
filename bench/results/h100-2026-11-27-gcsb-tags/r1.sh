#!/usr/bin/env bash
# Device run 1: SpMV's warp walk finds an element's block from a tag in its index instead of a
# search per piece. Module A/B: .ab/h0 (HEAD fd56cdd), .ab/tag3 (tags, SpMV pieces as before),
# .ab/tagP (tags, one more SpMV piece: 5 for one team, 6 for teams); nvcc sm_90 on the
# development machine. Then zsparse spmv --check with .ab/tag3 on the large blobs, and the whole
# test suite against .ab/tag3.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_build_bg
dev_host_tool
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R S3=stencil3d:n=160,points=27,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2 st27-f64 f64 $S3 st27-f32 f32 $S3 \
  l1-f64 f64 erdos_renyi:rows=16384,p=0.01,$R
log "blobs done"
C=($B/lap2d-f64.zsm:N $B/lap2d-f32.zsm:N $B/st27-f64.zsm:N $B/st27-f32.zsm:N $B/l1-f64.zsm:N $B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T)
timeout 330 bash bench/ab-modules.sh -r 2 -n 20 .ab/h0 .ab/tag3 .ab/tagP -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -16
log "A/B done"
for c in lap2d-f64:N lap2d-f32:N lap2d-f32:T st27-f64:N l1-f64:N; do
  ZS_MODULE_DIR=$PWD/.ab/tag3 timeout 60 $Z spmv $B/${c%%:*}.zsm --backend cuda --op ${c##*:} --check > $OUT/check-$c.txt 2>&1
  echo "check $c rc $?"; tail -3 $OUT/check-$c.txt
done
log "checks done"
dev_build_wait
dev_tests .ab/tag3
log done
