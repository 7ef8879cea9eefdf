#!/usr/bin/env bash
# Device run 17: dtANS on the small shared matrices, slicing options (blob level, HEAD module).
set -uo pipefail
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
[ -x build-host/tools/zsparse/zsparse ] || { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1; } || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/small; mkdir -p $B
C=()
for m in bcsstk13.mtx.gz memplus.mtx.gz bcsstk16.mtx.gz wiki-Vote.mtx; do
  n=${m%%.*}
  for o in default lane_symbols=256 lane_symbols=128 rows_per_lane=4 rows_per_lane=2 rows_per_lane=1; do
    opt=(); [ $o = default ] || opt=(--options $o)
    $Z convert shared/matrices/$m -o $B/$n-${o//=/}.zsm -f dtans --type f64 "${opt[@]}" >/dev/null && C+=($B/$n-${o//=/}.zsm:N)
    $Z convert shared/matrices/$m -o $B/$n-csr.zsm -f csr --type f64 >/dev/null
  done
  C+=($B/$n-csr.zsm:N)
done
bash bench/ab-modules.sh -c -r 2 -n 200 .ab/pow2r -- "${C[@]}" 2>&1 | tee $OUT/ab.txt
