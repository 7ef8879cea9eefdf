#!/usr/bin/env bash
# Device run 4: where SpMVT's time goes. ncu of the deterministic warp walk (.ab/c1, HEAD
# 206fe21's kernels) on the 2-D stencil, f64 and f32 SpMVT (four teams), random values, with
# per-instruction SASS counters; then SpMVT with two teams forced against the default four.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
export ZS_MODULE_DIR=$PWD/.ab/c1
R=values=random,seed=42
L2=stencil2d:n=4096,points=5,$R
dev_gen gcsb lap2d-f64 f64 $L2 lap2d-f32 f32 $L2
log "blobs done"
for f in lap2d-f64 lap2d-f32; do
  timeout 120 ncu --kernel-name regex:zs_csb_warp_kernel --launch-skip 1 --launch-count 1 --set full \
    --import-source no -f -o $OUT/$f-T $Z spmv $B/$f.zsm --backend cuda --op T --repeat 3 > $OUT/ncu-$f-T.log 2>&1
  echo "ncu $f T rc $?"
  ncu -i $OUT/$f-T.ncu-rep --page details > $OUT/$f-T-details.txt 2>&1
  ncu -i $OUT/$f-T.ncu-rep --page source --csv --print-source sass > $OUT/$f-T-sass.csv 2>&1
  gzip $OUT/$f-T-sass.csv
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|DRAM Throughput|Executed Instructions  |Warp Cycles Per Issued|Block Limit" $OUT/$f-T-details.txt | head -24
  log "ncu $f"
done
rm -f $OUT/*.ncu-rep
C=($B/lap2d-f64.zsm:T $B/lap2d-f64.zsm:T:det_teams=2 $B/lap2d-f32.zsm:T $B/lap2d-f32.zsm:T:det_teams=2)
timeout 120 bash bench/ab-modules.sh -r 2 -n 20 .ab/c1 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -8
log done
