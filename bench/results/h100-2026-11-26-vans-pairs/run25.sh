#!/usr/bin/env bash
# Device run 25 (H100): pair kernel rewritten (32-bit halves, loops split, ROWS and L2 hint
# variants); build, vans suite, SASS of the default, bench with the pair variants.
set -uo pipefail
start=$SECONDS
log() { printf '[run25 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
meson test -C build-gpu --suite vans --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped)|FAIL' $OUT/tests.txt
ZS_VANS_GPU_VARIANT=11 build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda; echo "variant 11 rc $?"
ZS_VANS_GPU_VARIANT=21 build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda; echo "variant 21 rc $?"
log tested
so=$(find build-gpu -name 'libzsparse-cuda.so' | head -1)
cuobjdump -sass "$so" > $OUT/all.sass 2>/dev/null
awk '/Function : .*vans_layer_pairsILb1ELi2ELb1E/{p=1} p&&/Function : /&&!/vans_layer_pairsILb1ELi2ELb1E/{p=0} p' $OUT/all.sass > $OUT/pairs-default.sass
awk '/Function : .*vans_layer_pairsILb1ELi1ELb0E/{p=1} p&&/Function : /&&!/vans_layer_pairsILb1ELi1ELb0E/{p=0} p' $OUT/all.sass > $OUT/pairs-11.sass
rm -f $OUT/all.sass
wc -l $OUT/*.sass
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 11,12,21,22 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 200 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 --variants 11,21 32768 2>&1 | tee $OUT/bench32k.txt
log done
