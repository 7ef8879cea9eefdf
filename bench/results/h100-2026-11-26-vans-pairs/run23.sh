#!/usr/bin/env bash
# Device run 23: the pair layout of MAT-VANS (ZS_VANS_PAIRS): build, vans suite on cuda, the
# pair kernel's SASS, then vans-bench-gpu (pairs, lanes, rows against cuBLAS int8 and Sgemv).
set -uo pipefail
start=$SECONDS
log() { printf '[run23 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"; tail -3 $OUT/build.log
log built
meson test -C build-gpu --suite vans --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped)|FAIL|OK ' $OUT/tests.txt
log tested
so=$(find build-gpu -name 'libzsparse-cuda.so' | head -1)
cuobjdump -sass "$so" > $OUT/all.sass 2>/dev/null
awk '/Function : .*vans_layer_pairsILb1E/{p=1} p&&/Function : /&&!/vans_layer_pairsILb1E/{p=0} p' $OUT/all.sass > $OUT/pairs-sx.sass
rm -f $OUT/all.sass
wc -l $OUT/pairs-sx.sass
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 240 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 32768 2>&1 | tee $OUT/bench32k.txt
log done
