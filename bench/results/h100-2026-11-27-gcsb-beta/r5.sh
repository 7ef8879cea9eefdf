#!/usr/bin/env bash
# Device run 5: the committed tree's cuda module (the split warp walk's last warp adds the parts;
# built with meson on the development machine, carried in .ab/final); everything but the module
# built here. One bench run with cuSPARSE beside on the three pruned-layer matrices, f64 and f32
# (r4 ran the whole test suite on the same kernels).
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
export ZS_MODULE_DIR=$PWD/.ab/final
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
ninja -C build-gpu bench/gpu/zs-bench-gpu >> $OUT/gpu-build.log 2>&1; echo "build (bench only) rc $?"
log "build done"
R=values=random,seed=42
timeout 250 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb" $OUT/bench.log | cut -c1-110
log done
