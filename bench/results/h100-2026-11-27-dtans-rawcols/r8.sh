#!/usr/bin/env bash
# Device run 8: 16-byte tasks for the f64 warp walk only (f32 keeps zs_csb_task). The tree built
# here with CUDA for the csb, gpu and conformance suites; module A/B .ab/new (24-byte tasks)
# against .ab/gc2 (this tree, built on the dev machine for sm_90), every product checked.
set -uo pipefail
start=$SECONDS
log() { printf '[r8 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?" >> $OUT/gpu-build.log) &
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27.zsm >/dev/null &
$Z gen stencil3d:n=160,points=27,$R --type f32 -f gcsb -o $B/st27f.zsm >/dev/null &
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1.zsm >/dev/null &
wait
log "blobs and gpu build done"; tail -1 $OUT/gpu-build.log
C=()
for f in st27 st27f l1; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/new .ab/gc2 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -12
log "A/B done"
meson test -C build-gpu --suite csb --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log done
