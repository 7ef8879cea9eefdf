#!/usr/bin/env bash
# Device run 2 (ninth session): raw-value slices spread evenly over the blocks. Module A/B, every
# module checked first (-c): .ab/base = HEAD's kernels; .ab/bal = balanced.diff (fixed-stride
# slices dealt to blocks first, so every block of a resident grid gets the same count within one;
# the grid is as large as residency allows, up to one block per slice group). Also the 3-D
# stencil encoded with lane_symbols=1080 (3099 slices: one round of the 3-block raw kernel).
# Modules: bash bench/module-variant.sh bal bench/results/h100-2026-11-27-dtans-probe/balanced.diff
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_host_tool
S=values=set,distinct=64,seed=42 R=values=random,seed=42
S3=stencil3d:n=160,points=27 L2=stencil2d:n=4096,points=5 BD=banded:rows=8388608,width=128,per_row=20
dev_gen dtans st27-rnd f64 $S3,$R lap-rnd f64 $L2,$R band-rnd f64 $BD,$R st27-rnd32 f32 $S3,$R
dev_gen dtans st27-set f64 $S3,$S lap-rnd32 f32 $L2,$R band-rnd32 f32 $BD,$R
"$Z" gen "$S3,$R" --type f64 -f dtans --options lane_symbols=1080 -o "$B/st27-rnd-1080.zsm" >/dev/null
"$Z" gen "$S3,$R" --type f32 -f dtans --options lane_symbols=1080 -o "$B/st27-rnd32-1080.zsm" >/dev/null
"$Z" convert shared/matrices/bcsstk13.mtx.gz -f dtans -o "$B/bcsstk13.zsm" >/dev/null
log "blobs done"
for f in "$B"/*.zsm; do printf '%s ' "${f##*/}"; "$Z" info "$f" | grep -o 'slices=[0-9]*'; done
C=()
for c in st27-rnd st27-rnd-1080 lap-rnd band-rnd st27-rnd32 st27-rnd32-1080 lap-rnd32 band-rnd32 st27-set bcsstk13; do
  C+=("$B/$c.zsm:N")
done
timeout 470 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/bal -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; grep -v '^ok' "$OUT/ab.txt" | tail -26
log "all done"
