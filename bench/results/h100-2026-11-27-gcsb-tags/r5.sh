#!/usr/bin/env bash
# Device run 5: the warp walk reads an output block's tasks at a fixed stride (padded with empty
# tasks) where every output block has at most a turn of blocks, instead of loading its range
# first (r4's profile: one of the dependent loads the warps wait on). Module A/B: .ab/c1 (HEAD
# 206fe21) against .ab/FIX; zsparse spmv --check with .ab/FIX; the whole suite against .ab/FIX.
set -uo pipefail
start=$SECONDS
log() { printf '[r5 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
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
done
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f64.zsm:N $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T)
timeout 150 bash bench/ab-modules.sh -r 2 -n 20 .ab/c1 .ab/FIX -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -8
log "A/B done"
for c in lap2d-f64:T st27-f64:T; do
  ZS_MODULE_DIR=$PWD/.ab/FIX timeout 40 $Z spmv $B/${c%%:*}.zsm --backend cuda --op ${c##*:} --check --repeat 3 > $OUT/check.txt 2>&1
  echo "check $c rc $?"; tail -1 $OUT/check.txt
done
wait $bp
tail -1 $OUT/gpu-build.log
ZS_MODULE_DIR=$PWD/.ab/FIX timeout 120 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
