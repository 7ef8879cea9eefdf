#!/usr/bin/env bash
# Device run 2: SpMVT variants, module A/B (nvcc sm_90 on the development machine):
# .ab/c1 (HEAD 206fe21: SpMV tags), .ab/Tinc (SpMVT's block search counts the blocks started
# before each piece instead of a ballot per piece), .ab/W16 (16-byte tasks for f32 too),
# .ab/TW16 (both). The module with the least sum of medians then runs the whole test suite
# and one bench run with cuSPARSE beside (stencils and the banded matrix, random values).
set -uo pipefail
start=$SECONDS
log() { printf '[r2 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
nvidia-smi -L
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
 targets=$(ninja -C build-gpu -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 | grep -v -E '^(backends/|meson-internal)')
 ninja -C build-gpu $targets >> $OUT/gpu-build.log 2>&1; echo "build (no module) rc $?" >> $OUT/gpu-build.log) &
bp=$!
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
for t in f64 f32; do
  $Z gen stencil2d:n=4096,points=5,$R --type $t -f gcsb -o $B/lap2d-$t.zsm >/dev/null & g+=($!)
  $Z gen stencil3d:n=160,points=27,$R --type $t -f gcsb -o $B/st27-$t.zsm >/dev/null & g+=($!)
done
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T $B/st27-f32.zsm:T $B/lap2d-f32.zsm:N)
M=(.ab/c1 .ab/Tinc .ab/W16 .ab/TW16)
timeout 290 bash bench/ab-modules.sh -r 2 -n 20 "${M[@]}" -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -10
PICK=$(awk '{for (i = 2; i < NF; i += 2) s[$i] += $(i + 1)} END {for (m in s) print s[m], m}' $OUT/ab.txt | sort -n | head -1 | cut -d' ' -f2)
log "A/B done, picked ${PICK:=.ab/c1}"
wait $bp
tail -1 $OUT/gpu-build.log
export ZS_MODULE_DIR=$PWD/$PICK
timeout 150 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
timeout 200 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R gen:stencil3d:n=160,points=27,$R \
  gen:banded:rows=8388608,width=128,per_row=20,$R > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-110
log done
