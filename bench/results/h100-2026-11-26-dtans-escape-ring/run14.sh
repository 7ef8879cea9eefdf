#!/usr/bin/env bash
# Device run 14: blob-level experiments with HEAD's module (.ab/pow2r): joint values for the
# few-valued banded matrix (coded by default), beta 32 for GCSB st27 f64.
set -uo pipefail
start=$SECONDS
log() { printf '[run14 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
BS=banded:rows=8388608,width=128,per_row=20,values=set,distinct=64,seed=42
gen band_auto_d $BS f64 dtans &
gen band_joint_d $BS f64 dtans values=joint &
gen band_auto_f $BS f32 dtans &
gen band_joint_f $BS f32 dtans values=joint &
ST=stencil3d:n=160,points=27,values=random,seed=42
gen st27g16 $ST f64 gcsb &
gen st27g32 $ST f64 gcsb beta=32 &
wait
log "blobs done"
ls -la $B
for f in band_auto_d band_joint_d; do $Z info $B/$f.zsm | grep -E "^params|stream_over|^total"; done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/pow2r -- $B/band_auto_d.zsm:N $B/band_joint_d.zsm:N $B/band_auto_f.zsm:N $B/band_joint_f.zsm:N $B/band_auto_d.zsm:T $B/band_joint_d.zsm:T $B/st27g16.zsm:N $B/st27g32.zsm:N $B/st27g16.zsm:T $B/st27g32.zsm:T 2>&1 | tee $OUT/ab.txt | tail -30
log done
