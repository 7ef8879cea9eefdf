#!/usr/bin/env bash
# Device run 15: escape ring A/B: HEAD (.ab/pow2r) vs ring for every value mode (.ab/escall) vs
# ring for coded values only (.ab/esccoded), suite blobs, every module checked first.
set -uo pipefail
start=$SECONDS
log() { printf '[run15 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
SET=values=set,distinct=64,seed=42; RND=values=random,seed=42
gen er_set_d erdos_renyi:rows=4194304,per_row=16,$SET f64 dtans &
gen er_set_f erdos_renyi:rows=4194304,per_row=16,$SET f32 dtans &
gen rmat_set_d rmat:scale=22,per_row=16,$SET f64 dtans &
gen band_joint_d banded:rows=8388608,width=128,per_row=20,$SET f64 dtans values=joint &
gen band_joint_f banded:rows=8388608,width=128,per_row=20,$SET f32 dtans values=joint &
gen band_auto_d banded:rows=8388608,width=128,per_row=20,$SET f64 dtans &
wait
gen st27_set_d stencil3d:n=160,points=27,$SET f64 dtans &
gen lap2d_set_d stencil2d:n=4096,points=5,$SET f64 dtans &
gen er_rnd_d erdos_renyi:rows=4194304,per_row=16,$RND f64 dtans &
gen st27_rnd_d stencil3d:n=160,points=27,$RND f64 dtans &
gen band_rnd_d banded:rows=8388608,width=128,per_row=20,$RND f64 dtans &
gen rmat_rnd_d rmat:scale=22,per_row=16,$RND f64 dtans &
wait
log "blobs done"
C=()
for f in er_set_d er_set_f rmat_set_d band_joint_d band_joint_f band_auto_d st27_set_d lap2d_set_d er_rnd_d st27_rnd_d band_rnd_d rmat_rnd_d; do C+=($B/$f.zsm:N); done
C+=($B/er_set_d.zsm:T $B/band_joint_d.zsm:T)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/pow2r .ab/escall .ab/esccoded -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"
log done
grep -v "^ok\|check" $OUT/ab.txt | tail -40
