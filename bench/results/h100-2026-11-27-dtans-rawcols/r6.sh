#!/usr/bin/env bash
# Device run 6: GCSB beta 16 (the f64 default) against 32 on the 27-point stencil 160^3, f64,
# deterministic SpMV and SpMVT (issue 6: the pair is at 1.37x cuSPARSE's, 1.5x asked). Module
# .ab/new (GCSB code as committed); every product checked.
set -uo pipefail
start=$SECONDS
log() { printf '[r6 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
G=stencil3d:n=160,points=27,values=random,seed=42
$Z gen $G --type f64 -f gcsb -o $B/st27_b16.zsm >/dev/null &
$Z gen $G --type f64 -f gcsb --options beta=32 -o $B/st27_b32.zsm >/dev/null &
$Z gen $G --type f32 -f gcsb --options beta=64 -o $B/st27_f32_b64.zsm >/dev/null &
$Z gen $G --type f32 -f gcsb -o $B/st27_f32_b32.zsm >/dev/null &
wait
for f in st27_b16 st27_b32; do $Z info $B/$f.zsm | grep -E "padding|bytes" | head -4; done
log "blobs done"
C=($B/st27_b16.zsm:N $B/st27_b32.zsm:N $B/st27_b16.zsm:T $B/st27_b32.zsm:T $B/st27_f32_b32.zsm:N $B/st27_f32_b64.zsm:N)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/new -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -14
log done
