#!/usr/bin/env bash
# Device run 3: the committed tree (teams of the GCSB warp walk chosen by elements per output
# block; 16-byte f64 tasks) built here with CUDA; the whole test suite; one bench run of GCSB
# with cuSPARSE beside on the 2-D and 27-point stencils and the banded matrix, f64 and f32; the
# banded matrix f64 again with four teams forced (auto takes two).
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
log "build done"
timeout 200 meson test -C build-gpu --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
R=values=random,seed=42
build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
  gen:banded:rows=8388608,width=128,per_row=20,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb" $OUT/bench.log
log "bench done"
build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --no-vendor --types f64 --format gcsb@det_teams=4 \
  --csv $OUT/bench-band4.csv gen:banded:rows=8388608,width=128,per_row=20,$R > $OUT/bench-band4.log 2>&1
echo "bench band rc $?"; grep -E "zsparse +gcsb" $OUT/bench-band4.log
log done
