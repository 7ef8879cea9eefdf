#!/usr/bin/env bash
# Device run 20: the raw 3-block kernel issues its second gather chunk early (.ab/early) against
# HEAD (.ab/pow2r); the tree's build, dtans/gpu/conformance suites, random-valued bench (f64).
set -uo pipefail
start=$SECONDS
log() { printf '[run20 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
( meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?" > $OUT/build.rc ) &
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
RND=values=random,seed=42
gen band_rnd_d banded:rows=8388608,width=128,per_row=20,$RND f64 dtans &
gen er_rnd_d erdos_renyi:rows=4194304,per_row=16,$RND f64 dtans &
gen rmat_rnd_d rmat:scale=22,per_row=16,$RND f64 dtans &
gen st27_rnd_d stencil3d:n=160,points=27,$RND f64 dtans &
wait
C=()
for f in band_rnd_d er_rnd_d rmat_rnd_d st27_rnd_d; do C+=($B/$f.zsm:N); done
C+=($B/band_rnd_d.zsm:N:col_slabs=2)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/pow2r .ab/early -- "${C[@]}" > $OUT/ab.txt 2>&1
log "A/B done"
wait
cat $OUT/build.rc
meson test -C build-gpu --suite dtans --suite gpu --suite conformance --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/rnd.csv --md $OUT/rnd.md --no-cold --reps 10 --types f64 --format dtans gen:banded:rows=8388608,width=128,per_row=20,$RND gen:erdos_renyi:rows=4194304,per_row=16,$RND gen:rmat:scale=22,per_row=16,$RND > $OUT/rnd.log 2>&1
echo "bench rc $?"
log done
cat $OUT/ab.txt
