#!/usr/bin/env bash
# Device run 2: ncu of the GCSB deterministic warp walk (HEAD c1f11b9's module, .ab/base) on the
# 2-D stencil (four teams) and the 27-point stencil (one team), f64 SpMV, random values; then
# the whole test suite against that module (everything but the module built here).
set -uo pipefail
. bench/device-lib.sh
dev_begin r2
dev_build_bg
dev_host_tool
export ZS_MODULE_DIR=$PWD/.ab/base
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,points=5,$R --type f64 -f gcsb -o $B/lap2d-f64.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
for f in lap2d-f64 st27-f64; do
  timeout 150 ncu --kernel-name regex:zs_csb_warp_kernel --launch-skip 1 --launch-count 1 --set full \
    --import-source no -f -o $OUT/$f $Z spmv $B/$f.zsm --backend cuda --repeat 3 > $OUT/ncu-$f.log 2>&1
  echo "ncu $f rc $?"
  ncu -i $OUT/$f.ncu-rep --page details > $OUT/$f-details.txt 2>&1
  ncu -i $OUT/$f.ncu-rep --page source --csv --print-source sass > $OUT/$f-sass.csv 2>&1
  gzip $OUT/$f-sass.csv
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|DRAM Throughput|Executed Instructions  |Warp Cycles Per Issued|Block Limit" $OUT/$f-details.txt | head -24
  log "ncu $f"
done
rm -f $OUT/*.ncu-rep
dev_build_wait
timeout 240 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
