#!/usr/bin/env bash
# Device run 28 (H100): pair kernel with an L1 lookahead (cp.async.ca), variants 12,13,22,23;
# build, vans suite, bench.
set -uo pipefail
start=$SECONDS
log() { printf '[run28 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
meson test -C build-gpu --suite vans --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped)|FAIL' $OUT/tests.txt
for v in 12 21; do ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda; echo "variant $v rc $?"; done
log tested
so=$(find build-gpu -name 'libzsparse-cuda.so' | head -1)
cuobjdump -sass "$so" > $OUT/all.sass 2>/dev/null
awk '/Function : .*vans_layer_pairsILb1ELi2ELb1ELb1ELb1E/{p=1} p&&/Function : /&&!/vans_layer_pairsILb1ELi2ELb1ELb1ELb1E/{p=0} p' $OUT/all.sass > $OUT/pairs-2rows-narrow.sass
rm -f $OUT/all.sass
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 12,13,22,23 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 200 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 32768 2>&1 | tee $OUT/bench32k.txt
log done
