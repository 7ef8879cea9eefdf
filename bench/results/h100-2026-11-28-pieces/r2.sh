#!/usr/bin/env bash
# Device run 2 (thirteenth session). r1: with pieces (.ab/pc4) the 2-D stencil's f64 SpMVT took
# what HEAD's did (515 µs) and the f32 one 493 µs in the bench, against 336 before. Are the
# pieces in effect (det_pieces=on / off in one module), and is f32's loss L1 (fewer registers,
# 48 -> 40, let 12 blocks of 16 KB sums in per SM, leaving less L1 to x; f64 62 -> 48, 10 blocks
# instead of 8)? .ab/pcL and .ab/pcM ask the piece kernels for a carve-out of 72 % and 58 %
# shared memory (9 and 7 blocks). ncu of the SpMVT, HEAD's warp walk and the piece kernel:
# occupancy, L1, stalls.
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_host_tool
R=values=random,seed=42
dev_gen gcsb lap64 f64 stencil2d:n=4096,points=5,$R lap32 f32 stencil2d:n=4096,points=5,$R
log "blobs made"
timeout 200 bash bench/ab-modules.sh -r 2 -n 20 .ab/pc4 -- "$B/lap32.zsm:T:det_pieces=on" \
  "$B/lap32.zsm:T:det_pieces=off" "$B/lap64.zsm:T:det_pieces=on" "$B/lap64.zsm:T:det_pieces=off" \
  2>&1 | tee "$OUT/ab-onoff.txt"
timeout 300 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/mend2 .ab/pc4 .ab/pc8 .ab/pcL .ab/pcM -- \
  "$B/lap32.zsm:T" "$B/lap32.zsm:N" "$B/lap64.zsm:T" 2>&1 | tee "$OUT/ab.txt"
log "a/b done"
S="--section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Tables --section InstructionStats --section WarpStateStats --section SchedulerStats --section SpeedOfLight"
for mb in mend2:lap32 pc4:lap32 pcL:lap32 mend2:lap64 pc4:lap64; do
  m=${mb%%:*} b=${mb#*:}
  # shellcheck disable=SC2086 # one section per word
  ZS_MODULE_DIR=$PWD/.ab/$m timeout 120 ncu --kernel-name regex:'zs_csb_(warp|piece)_kernel' \
    --launch-skip 2 --launch-count 1 $S "$Z" spmv "$B/$b.zsm" --backend cuda --op T \
    --repeat 3 >"$OUT/ncu-$m-$b.txt" 2>&1
  echo "== $m $b"
  grep -E "Duration|Registers Per|Achieved Occupancy|Block Limit|Executed Instructions |Issue Slots Busy|L1/TEX Hit|L2 Hit|Shared Memory Configuration Size|Driver Shared|Warp Cycles Per Issued|No Eligible" "$OUT/ncu-$m-$b.txt" | head -24
done
log "all done"
