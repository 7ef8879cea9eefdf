#!/usr/bin/env bash
# Device run 7: GCSB's warp walk reading 16-byte tasks (zs_csb_wtask) instead of 24-byte ones.
# Modules built on the dev machine for sm_90: .ab/new (24-byte tasks, GCSB code as committed)
# and .ab/gc (this tree). Deterministic SpMV and SpMVT, random values; every product checked.
set -uo pipefail
start=$SECONDS
log() { printf '[r7 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27.zsm >/dev/null &
$Z gen stencil3d:n=160,points=27,$R --type f32 -f gcsb -o $B/st27f.zsm >/dev/null &
$Z gen stencil2d:n=4096,points=5,$R --type f64 -f gcsb -o $B/lap2d.zsm >/dev/null &
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1.zsm >/dev/null &
wait
log "blobs done"
C=()
for f in st27 st27f lap2d l1; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/new .ab/gc -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -16
log done
