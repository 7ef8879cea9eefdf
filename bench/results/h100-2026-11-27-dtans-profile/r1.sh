#!/usr/bin/env bash
# Device run 1 of 2026-11-27 (dtANS): where the joint f64 SpMV kernel's time goes, per SASS
# instruction. Module .ab/base = HEAD 774f13e built on the dev machine (sm_90); no nvcc build here.
set -uo pipefail
start=$SECONDS
log() { printf '[r1 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse > $OUT/build.log 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
export ZS_MODULE_DIR=.ab/base
B=/tmp/blobs; mkdir -p $B
gen() { $Z gen "$2" --type "$3" -f $4 ${5:+--options $5} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
SET=values=set,distinct=64,seed=42
gen st27_set_d stencil3d:n=160,points=27,$SET f64 dtans &
gen band_set_d banded:rows=8388608,width=128,per_row=20,$SET f64 dtans &
gen lap2d_set_d stencil2d:n=4096,points=5,$SET f64 dtans &
wait
log "blobs done"
for f in st27_set_d band_set_d lap2d_set_d; do
  $Z info $B/$f.zsm | grep -i -E "value mode|slices|bytes" | head -5
  $Z spmv $B/$f.zsm --backend cuda --repeat 20 --check 2>&1 | tail -2
done
cuobjdump -sass .ab/base/libzsparse-cuda.so | awk '/Function : .*zs_dtans_kernelIdLi3ELi0ELb0ELb0ELi3E/{p=1} /Function : /&&!/zs_dtans_kernelIdLi3ELi0ELb0ELb0ELi3E/{p=0} p' > $OUT/sass-joint-f64.txt
wc -l $OUT/sass-joint-f64.txt
log sass
for f in st27_set_d band_set_d; do
  timeout 240 ncu --kernel-name regex:zs_dtans_kernel --launch-skip 1 --launch-count 1 --set full \
    --import-source no -f -o $OUT/$f $Z spmv $B/$f.zsm --backend cuda --repeat 3 > $OUT/ncu-$f.log 2>&1
  echo "ncu $f rc $?"
  ncu -i $OUT/$f.ncu-rep --page details > $OUT/$f-details.txt 2>&1
  ncu -i $OUT/$f.ncu-rep --page source --csv --print-source sass > $OUT/$f-sass.csv 2>&1
  wc -c $OUT/$f-sass.csv
  log "ncu $f"
done
gzip $OUT/*.ncu-rep
grep -E "Duration|Registers|Achieved Occupancy|Issue Slots Busy|L1/TEX Hit|Mem Busy|Max Bandwidth|Executed Instructions  |Theoretical Occupancy|Warp Cycles Per Issued" $OUT/st27_set_d-details.txt | head -30
log done
