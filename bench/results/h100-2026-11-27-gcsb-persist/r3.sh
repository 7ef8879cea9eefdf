#!/usr/bin/env bash
# Device run 3: the warp walk's tail (every lane adds, XOR-swizzled columns) and SpMV's run skew
# (one shuffle per turn). Module A/B, no check step (the suite below checks .ab/tsk): .ab/base
# (HEAD c1f11b9), .ab/tail (the tail alone), .ab/tsk (the tail and the run skew), nvcc sm_90 on
# the development machine. Then the whole test suite against .ab/tsk.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_bg
dev_host_tool
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
$Z gen stencil2d:n=4096,points=5,$R --type f64 -f gcsb -o $B/lap2d-f64.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f64 -f gcsb -o $B/st27-f64.zsm >/dev/null & g+=($!)
$Z gen stencil3d:n=160,points=27,$R --type f32 -f gcsb -o $B/st27-f32.zsm >/dev/null & g+=($!)
$Z gen erdos_renyi:rows=16384,p=0.01,$R --type f64 -f gcsb -o $B/l1-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:N $B/lap2d-f64.zsm:T $B/st27-f64.zsm:N $B/st27-f64.zsm:T $B/st27-f32.zsm:N $B/l1-f64.zsm:N)
timeout 330 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/tail .ab/tsk -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -14
log "A/B done"
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/tsk
dev_tests .ab/tsk
log done
