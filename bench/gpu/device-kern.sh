#!/usr/bin/env bash
# device-kern.sh — on the GPU machine, from the repository root: the plain kernels' choices (CSR
# block size, thread-by-thread row sums, long rows finished by their last chunk, evict-first
# loads; SELL's loads ahead of the adds) against the defaults and cuSPARSE, in one process per
# matrix, after a correctness gate, in one call of about 200 s.
#
#   OUT=$OUT MODULE_DIR=DIR bash bench/gpu/device-kern.sh
#
# MODULE_DIR (required): a folder holding libzsparse-cuda.so built on the development machine.
# Builds build-gpu without the GPU modules (bench/device-lib.sh), then:
#   1. conformance on cuda against ref for csr, coo and sell with their kernel-choice variants
#      (tests/conformance: csr-t256, csr-f512, csr-threads, sell-u8, sell-u2-atomic); a failure
#      is reported and the timing still runs (each timed kernel is checked again there);
#   2. zs-bench-gpu per case below: the default csr and coo, the choices as --format
#      csr@OPTIONS / sell@OPTIONS, cuSPARSE's formats; warm medians of REPS calls (default 20).
#      Cases left when BUDGET_S (default 220) of the whole script has passed are skipped.
# Writes to $OUT: conformance.txt, DEVICE-kern.csv (zs-bench-gpu's columns, the case name
# first), bench-NAME.log, gpu-build.log, nvidia-smi.txt. DEVICE is h100 or h200.
set -euo pipefail

if [ ! -f meson.build ] || [ ! -f bench/gpu/zs_bench_gpu.cu ]; then
  echo "device-kern.sh: run it from the repository root" >&2
  exit 2
fi
# shellcheck source=bench/device-lib.sh disable=SC1091
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
BUDGET_S=${BUDGET_S:-220}
REPS=${REPS:-20}
dev_begin kern
dev_gpu_info # $OUT/nvidia-smi.txt, DEVICE
dev_module_dir device-kern.sh # ZS_MODULE_DIR from MODULE_DIR
log "build (module from $MODULE_DIR)"
dev_build_bg
dev_build_wait

# 1. correctness (not a gate: a wrong variant shows as FAIL in the timing's check too)
dev_conformance 100 csr coo sell

# 2. timing: NAME TYPES SPEC FORMATS... (one zs-bench-gpu process per case)
M=../shared/matrices
T='experimental.reduce=threads' F='experimental.long_rows=fused'
rmat_formats=("csr@$T" "csr@$F" "csr@$T,$F" "csr@block_nnz=512" "csr@block_nnz=512,$T,$F"
  "csr@block_nnz=2048,$T,$F" "csr@experimental.evict_first=off")
small_formats=("csr@block_nnz=256" "csr@block_nnz=512" "csr@block_nnz=1024" "csr@block_nnz=2048"
  "csr@block_nnz=256,$T" "csr@block_nnz=1024,$T")
CSV=$OUT/$DEVICE-kern.csv
rm -f "$CSV"
DEV_STATUS=0
run_case() { dev_bench_case "$@"; }
run_case rmat f32,f64 "gen:rmat:scale=19,per_row=16,values=random,seed=42" "${rmat_formats[@]}"
run_case rmat-s19 f32 "gen:rmat:scale=19,per_row=24,values=set,distinct=64,seed=22" \
  "${rmat_formats[@]}"
run_case band-set f32 "gen:banded:rows=1048576,width=128,per_row=20,values=set,distinct=64,seed=42" \
  sell sell@experimental.sell_unroll=8 sell@experimental.sell_unroll=2 \
  sell@experimental.evict_first=on "sell@experimental.sell_unroll=8,experimental.evict_first=on" \
  "csr@$T" csr@experimental.evict_first=on
run_case memplus f64,f32 "$M/memplus.mtx.gz" "${small_formats[@]}"
run_case rmat-s14 f64 "gen:rmat:scale=14,per_row=8,values=random,seed=21" "${small_formats[@]}" \
  "csr@$T,$F" "csr@block_nnz=512,$T,$F"
run_case lap2d f32,f64 "gen:stencil2d:n=1448,points=5,values=random,seed=42" \
  "csr@$T" csr@experimental.evict_first=on csr@block_nnz=1024 sell sell@experimental.sell_unroll=8
run_case zenios f64 "$M/zenios.mtx" "${small_formats[@]}"
run_case bcsstk13 f64 "$M/bcsstk13.mtx.gz" "${small_formats[@]}"
log "done: $CSV ($(($(wc -l <"$CSV") - 1)) lines), bench status $DEV_STATUS, conformance $DEV_CONF"
dev_print_csv "$CSV"
[ "$DEV_CONF" = ok ] || DEV_STATUS=1
exit $DEV_STATUS
