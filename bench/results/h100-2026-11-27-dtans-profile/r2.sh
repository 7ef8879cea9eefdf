#!/usr/bin/env bash
# Device run 2 of 2026-11-27. GCSB: the deterministic warp walk cut for more blocks per SM.
# dtANS: f64 value dictionaries as two 32-bit halves in shared memory. Modules built on the dev
# machine (sm_90): .ab/base = HEAD 774f13e (warp walk 52-56 registers, 9 blocks of 128 per SM),
# B10 / B12 = __launch_bounds__(128, N) on zs_csb_warp_kernel (-DZS_CSB_WARP_BLOCKS=N: 48
# registers and 20-44 bytes spilled / 40 and 68-88), SV = -DZS_DT_SPLIT_VALUES=1.
set -uo pipefail
start=$SECONDS
log() { printf '[r2 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f gcsb ${4:+--options $4} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
R=values=random,seed=42
gen lap_d stencil2d:n=4096,points=5,$R f64 &
gen st27_d stencil3d:n=160,points=27,$R f64 &
gen lap_f stencil2d:n=4096,points=5,$R f32 &
gen st27_f stencil3d:n=160,points=27,$R f32 &
gen l1d erdos_renyi:rows=16384,p=0.01,$R f64 &
S=values=set,distinct=64,seed=42
dt() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type f64 -f dtans -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
dt st27_set stencil3d:n=160,points=27,$S &
dt lap_set stencil2d:n=4096,points=5,$S &
dt band_set banded:rows=8388608,width=128,per_row=20,$S &
dt er_set erdos_renyi:rows=4194304,per_row=16,$S &
wait
log "blobs done"
C=()
for f in st27_set lap_set band_set er_set; do C+=($B/$f.zsm:N); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/SV -- "${C[@]}" > $OUT/ab-dtans.txt 2>&1
echo "ab dtans rc $?"
log "A/B dtans done"
grep -v "^ok" $OUT/ab-dtans.txt | tail -12
C=()
for f in lap_d st27_d lap_f st27_f l1d; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/B10 .ab/B12 -- "${C[@]}" > $OUT/ab-gcsb.txt 2>&1
echo "ab gcsb rc $?"
log "A/B gcsb done"
grep -v "^ok" $OUT/ab-gcsb.txt | tail -24
