#!/usr/bin/env bash
# Device run 6: the committed tree's module (.ab/fin: meson build on the development machine):
# the whole test suite, then one bench run of GCSB with cuSPARSE beside on the stencils, the
# banded matrix and the pruned layers (issue 6's matrices), random values, f64 and f32.
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
targets=$(ninja -C build-gpu -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 | grep -v -E '^(backends/|meson-internal)')
ninja -C build-gpu $targets >> $OUT/gpu-build.log 2>&1; echo "build (no module) rc $?"
export ZS_MODULE_DIR=$PWD/.ab/fin
dev_tests .ab/fin
log "tests done"
R=values=random,seed=42
timeout 250 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
  gen:banded:rows=8388608,width=128,per_row=20,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-110
log "bench done"
timeout 60 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/layers.csv --md $OUT/layers.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/layers.log 2>&1
echo "layers rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/layers.log | cut -c1-110
log done
