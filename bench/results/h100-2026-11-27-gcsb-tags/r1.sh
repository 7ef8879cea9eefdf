#!/usr/bin/env bash
# Device run 1: SpMV's warp walk finds an element's block from a tag in its index instead of a
# search per piece. Module A/B: .ab/h0 (HEAD fd56cdd), .ab/tag3 (tags, SpMV pieces as before),
# .ab/tagP (tags, one more SpMV piece: 5 for one team, 6 for teams); nvcc sm_90 on the
# development machine. Then zsparse spmv --check with .ab/tag3 on the large blobs, and the whole
# test suite against .ab/tag3.
set -uo pipefail
start=$SECONDS
log() { printf '[r1 %4ds] %s\n' $((SECONDS - start)) "$*"; }
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
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:N $B/lap2d-f32.zsm:N $B/st27-f64.zsm:N $B/st27-f32.zsm:N $B/l1-f64.zsm:N $B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/st27-f64.zsm:T)
timeout 330 bash bench/ab-modules.sh -r 2 -n 20 .ab/h0 .ab/tag3 .ab/tagP -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -16
log "A/B done"
for c in lap2d-f64:N lap2d-f32:N lap2d-f32:T st27-f64:N l1-f64:N; do
  ZS_MODULE_DIR=$PWD/.ab/tag3 timeout 60 $Z spmv $B/${c%%:*}.zsm --backend cuda --op ${c##*:} --check > $OUT/check-$c.txt 2>&1
  echo "check $c rc $?"; tail -3 $OUT/check-$c.txt
done
log "checks done"
wait $bp
tail -1 $OUT/gpu-build.log
export ZS_MODULE_DIR=$PWD/.ab/tag3
timeout 200 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
