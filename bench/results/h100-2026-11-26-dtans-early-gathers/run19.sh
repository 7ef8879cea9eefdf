#!/usr/bin/env bash
# Device run 19: f64 joint and raw kernels issue the second chunk of gathers earlier:
# HEAD (.ab/pow2r) vs ge1 (after the state update, before the products) vs ge2 (all up front).
set -uo pipefail
mkdir -p $OUT
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
SET=values=set,distinct=64,seed=42; RND=values=random,seed=42
gen st27_set_d stencil3d:n=160,points=27,$SET f64 dtans &
gen lap2d_set_d stencil2d:n=4096,points=5,$SET f64 dtans &
gen band_set_d banded:rows=8388608,width=128,per_row=20,$SET f64 dtans &
wait
gen st27_rnd_d stencil3d:n=160,points=27,$RND f64 dtans &
gen band_rnd_d banded:rows=8388608,width=128,per_row=20,$RND f64 dtans &
gen er_rnd_d erdos_renyi:rows=4194304,per_row=16,$RND f64 dtans &
wait
C=()
for f in st27_set_d lap2d_set_d band_set_d st27_rnd_d band_rnd_d er_rnd_d; do C+=($B/$f.zsm:N); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/pow2r .ab/ge1 .ab/ge2 -- "${C[@]}" 2>&1 | tee $OUT/ab.txt
