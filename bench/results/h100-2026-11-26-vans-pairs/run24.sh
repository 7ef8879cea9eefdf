#!/usr/bin/env bash
# Device run 24: ncu of the pair kernel (N = 16384, entropy 4) and of the lanes kernel beside it.
set -uo pipefail
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
[ -x build-gpu/tools/zsparse/zsparse ] || { meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1; ninja -C build-gpu >/dev/null 2>&1; }
Z=build-gpu/tools/zsparse/zsparse
$Z vans gen n=16384,k=1,seed=1,entropy=4 /tmp/p.vans --pairs
$Z vans gen n=16384,k=1,seed=1,entropy=4 /tmp/l.vans --interleaved
for f in p l; do
  ncu --kernel-name regex:vans_layer --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section InstructionStats --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats $Z vans run /tmp/$f.vans --backend cuda --reps 2 > $OUT/ncu-$f.txt 2>&1
  echo "== $f"; grep -E "Duration|Executed Instructions |Issue Slots Busy|Issued Warp|No Eligible|Active Warps Per|Achieved Occupancy|Bank Conflicts|Shared Load|L1/TEX Hit|Memory Throughput|Stall|Warp Cycles Per Issued" $OUT/ncu-$f.txt | head -40
done
