#!/usr/bin/env bash
# Device run 11 (ninth session): why smaller lanes make the few-valued decode faster. ncu on the
# few-valued 3-D stencil f64 SpMV, default lanes against lane_symbols=256, with HEAD's module
# (.ab/dynr) and the probe without gathers (.ab/p1): speed of light, memory, occupancy, scheduler
# and warp-state sections, details page per profile.
set -uo pipefail
. bench/device-lib.sh
dev_begin r11
dev_host_tool
S=values=set,distinct=64,seed=42 S3=stencil3d:n=160,points=27
B=/tmp/blobs; mkdir -p $B
"$Z" gen "$S3,$S" --type f64 -f dtans -o "$B/st27s.zsm" >/dev/null &
"$Z" gen "$S3,$S" --type f64 -f dtans --options lane_symbols=256 -o "$B/st27s-256.zsm" >/dev/null &
wait
log "blobs done"
for m in dynr p1; do
  for f in st27s st27s-256; do
    ZS_MODULE_DIR=$PWD/.ab/$m timeout 100 ncu --kernel-name regex:zs_dtans_kernel --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats \
      --section WarpStateStats --section LaunchStats -f -o "$OUT/$m-$f" "$Z" spmv "$B/$f.zsm" --backend cuda --repeat 3 \
      > "$OUT/ncu-$m-$f.log" 2>&1
    echo "ncu $m $f rc $?"
    ncu -i "$OUT/$m-$f.ncu-rep" --page details > "$OUT/$m-$f-details.txt" 2>&1
    rm -f "$OUT/$m-$f.ncu-rep"
  done
done
grep -E 'Duration|DRAM Throughput|L2 Hit Rate|L1/TEX Hit Rate|Mem Busy|Issue Slots Busy|Achieved Occupancy|No Eligible|Warp Cycles Per Issued' "$OUT"/*-details.txt
log "all done"
