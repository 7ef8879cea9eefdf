#!/usr/bin/env bash
# Device run 16: dtANS launch choices cached per operator (.ab/cache) against HEAD's module
# (.ab/pow2r) on small and large blobs; then the tree's full build and the whole test suite.
set -uo pipefail
start=$SECONDS
log() { printf '[run16 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
( meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?" > $OUT/build.rc ) &
for m in bcsstk13.mtx.gz memplus.mtx.gz wiki-Vote.mtx; do $Z convert shared/matrices/$m -o $B/${m%%.*}.zsm -f dtans --type f64 >/dev/null; done
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
gen st27_set_d stencil3d:n=160,points=27,values=set,distinct=64,seed=42 f64 dtans
gen er_rnd_d erdos_renyi:rows=4194304,per_row=16,values=random,seed=42 f64 dtans
log "blobs done"
bash bench/ab-modules.sh -r 2 -n 200 .ab/pow2r .ab/cache -- $B/bcsstk13.zsm:N $B/memplus.zsm:N $B/wiki-Vote.zsm:N $B/bcsstk13.zsm:T > $OUT/ab.txt 2>&1
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/pow2r .ab/cache -- $B/st27_set_d.zsm:N $B/er_rnd_d.zsm:N >> $OUT/ab.txt 2>&1
log "A/B done"
wait
cat $OUT/build.rc
meson test -C build-gpu --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
grep -E "gpu option|det_splits|raw_blocks=2|col_slabs=9" build-gpu/meson-logs/testlog.txt | head -12
log "tests done"
cat $OUT/ab.txt
