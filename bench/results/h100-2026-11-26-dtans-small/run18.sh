#!/usr/bin/env bash
# Device run 18: the tree (joint preference, small-matrix slicing, GPU option cases): small
# matrices old vs new default slicing (HEAD module), full build, whole test suite, bench.
set -uo pipefail
start=$SECONDS
log() { printf '[run18 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
( meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?" > $OUT/build.rc ) &
rm -rf build-host
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/small2; mkdir -p $B
C=()
for m in bcsstk13.mtx.gz memplus.mtx.gz bcsstk16.mtx.gz wiki-Vote.mtx luxembourg_osm.mtx.gz bayer10.mtx.gz; do
  n=${m%%.*}
  $Z convert shared/matrices/$m -o $B/$n-old.zsm -f dtans --type f64 --options lane_symbols=1024 >/dev/null
  $Z convert shared/matrices/$m -o $B/$n-new.zsm -f dtans --type f64 >/dev/null
  $Z convert shared/matrices/$m -o $B/$n-csr.zsm -f csr --type f64 >/dev/null
  C+=($B/$n-old.zsm:N $B/$n-new.zsm:N $B/$n-csr.zsm:N $B/$n-old.zsm:T $B/$n-new.zsm:T)
done
ls -la $B > $OUT/small-sizes.txt
bash bench/ab-modules.sh -c -r 2 -n 200 .ab/pow2r -- "${C[@]}" > $OUT/small-ab.txt 2>&1
log "small A/B done"
wait
cat $OUT/build.rc
meson test -C build-gpu --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
cp build-gpu/meson-logs/testlog.txt $OUT/testlog.txt
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/band.csv --md $OUT/band.md --no-cold --reps 10 --format dtans gen:banded:rows=8388608,width=128,per_row=20,values=set,distinct=64,seed=42 > $OUT/band.log 2>&1
echo "band bench rc $?"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/small.csv --md $OUT/small.md --no-cold --reps 30 --format dtans shared/matrices/bcsstk16.mtx.gz shared/matrices/memplus.mtx.gz shared/matrices/luxembourg_osm.mtx.gz > $OUT/small.log 2>&1
echo "small bench rc $?"
log done
cat $OUT/small-ab.txt
