#!/usr/bin/env bash
# Device run 21: random-valued stencils sliced to fit one round of the 3-block raw kernel
# (lane_symbols raised so that slices <= 3168 on an H100), HEAD's module (.ab/head2).
set -uo pipefail
mkdir -p $OUT
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
RND=values=random,seed=42
gen st27_d stencil3d:n=160,points=27,$RND f64 dtans &
gen st27_d_1056 stencil3d:n=160,points=27,$RND f64 dtans lane_symbols=1056 &
gen st27_f stencil3d:n=160,points=27,$RND f32 dtans &
gen st27_f_1056 stencil3d:n=160,points=27,$RND f32 dtans lane_symbols=1056 &
gen lap_d stencil2d:n=4096,points=5,$RND f64 dtans &
gen lap_d_1344 stencil2d:n=4096,points=5,$RND f64 dtans lane_symbols=1344 &
wait
for f in st27_d st27_d_1056 lap_d lap_d_1344; do echo "$f $($Z info $B/$f.zsm | grep -oE ' slices=[0-9]+|^total.*')"; done
C=()
for f in st27_d st27_d_1056 st27_f st27_f_1056 lap_d lap_d_1344; do C+=($B/$f.zsm:N); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/head2 -- "${C[@]}" 2>&1 | tee $OUT/ab.txt
