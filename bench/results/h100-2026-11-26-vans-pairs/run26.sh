#!/usr/bin/env bash
# Device run 26 (H100): pair kernel with 32-bit table entries (encoder caps f at 255), rows per
# group chosen by the rows; build, vans suite (incl. 8-byte-entry layers), SASS, bench.
set -uo pipefail
start=$SECONDS
log() { printf '[run26 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-gpu > $OUT/build.log 2>&1; echo "gpu build rc $?"
log built
meson test -C build-gpu --suite vans --num-processes 4 > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped)|FAIL' $OUT/tests.txt
for v in 11 22; do ZS_VANS_GPU_VARIANT=$v build-gpu/tests/vans/test_vans tests/golden/vans /tmp cuda; echo "variant $v rc $?"; done
log tested
so=$(find build-gpu -name 'libzsparse-cuda.so' | head -1)
cuobjdump -sass "$so" > $OUT/all.sass 2>/dev/null
awk '/Function : .*vans_layer_pairsILb1ELi2ELb1ELb1E/{p=1} p&&/Function : /&&!/vans_layer_pairsILb1ELi2ELb1ELb1E/{p=0} p' $OUT/all.sass > $OUT/pairs-2rows-narrow.sass
rm -f $OUT/all.sass
build-gpu/bench/vans/vans-bench-gpu --layers 4 --reps 20 --entropy 4 --variants 12,22 4096 8192 16384 2>&1 | tee $OUT/bench.txt
log bench1
timeout 200 build-gpu/bench/vans/vans-bench-gpu --layers 2 --reps 10 --entropy 4 32768 2>&1 | tee $OUT/bench32k.txt
log done
