#!/usr/bin/env bash
# device-gaps.sh — on the GPU machine, from the repository root: the plain kernels where cuSPARSE
# was still ahead (Watts-Strogatz f64 SpMV, the banded f32 BiCG pair, Barabási-Albert f64 SpMV),
# SELL's walks (experimental.sell_tail, sell_unroll=16, sell_threads), its deterministic SpMVT
# through Aᵀ as SELL sorted in windows (experimental.sell_transpose=sell), CSR's reduction by
# threads and plain loads, beside the defaults and cuSPARSE in one process per matrix, after a
# correctness run, in one call of about 100-150 s.
#
#   OUT=$OUT MODULE_DIR=DIR [BUDGET_S=150] bash bench/gpu/device-gaps.sh
#
# MODULE_DIR (required): a folder holding libzsparse-cuda.so built on the development machine.
# Builds build-gpu without the GPU modules (bench/device-lib.sh), then:
#   1. conformance on cuda against ref for sell and csr (every walk and kernel choice among the
#      variants: sell-batch8, sell-batch4-t, sell-batch16-t, sell-ahead8, sell-ahead4-t); a
#      failure is reported and the timing still runs (each timed kernel is checked again there);
#   2. zs-bench-gpu per case below (warm medians of REPS calls, default 20): SpMV, the
#      deterministic and atomic SpMVT and the atomic pair of each format, cuSPARSE's formats
#      beside (its SELL-32, CSR and COO; SpMVT through a stored Aᵀ). Cases left when BUDGET_S of
#      the whole script has passed are skipped; the regression guards (band f64, lap2d) last.
# Writes to $OUT: conformance.txt, DEVICE-gaps.csv (zs-bench-gpu's columns, the case name
# first), bench-NAME.log, gpu-build.log, nvidia-smi.txt. DEVICE is h100 or h200.
set -euo pipefail

if [ ! -f meson.build ] || [ ! -f bench/gpu/zs_bench_gpu.cu ]; then
  echo "device-gaps.sh: run it from the repository root" >&2
  exit 2
fi
# shellcheck source=bench/device-lib.sh disable=SC1091
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
BUDGET_S=${BUDGET_S:-150}
REPS=${REPS:-20}
dev_begin gaps
dev_gpu_info # $OUT/nvidia-smi.txt, DEVICE
dev_module_dir device-gaps.sh # ZS_MODULE_DIR from MODULE_DIR
log "build (module from $MODULE_DIR)"
dev_build_bg
dev_build_wait

# 1. correctness (not a gate: a wrong kernel shows as FAIL in the timing's check too)
dev_conformance 70 sell csr

# 2. timing: NAME TYPES SPEC FORMATS... (one zs-bench-gpu process per case)
E=experimental
B="$E.sell_tail=batch"
A="$E.sell_tail=ahead"
U="$E.sell_unroll=16"
TS="$E.sell_transpose=sell"
OFF="$E.evict_first=off"
CSV=$OUT/$DEVICE-gaps.csv
rm -f "$CSV"
DEV_STATUS=0
# SpMV of short, slightly uneven rows on a matrix that fits the L2 cache (latency-bound)
dev_bench_case ws f64 "gen:watts_strogatz:n=100000,k=10,p=0.1,values=random,seed=41" \
  sell "sell@$B" "sell@$B,$E.sell_threads=128" "sell@$U" "sell@$A" "sell@$OFF" "sell@$B,$OFF" \
  "sell@$A,$OFF" "sell:sigma=4096@$B" "sell:sigma=4096@$B,$OFF" csr "csr@$OFF" \
  "csr@block_nnz=1024,$OFF"
# BiCG's pair: SpMVT through Aᵀ as CSR (default, and reduced by threads) or as sorted SELL
dev_bench_case band f32 "gen:banded:rows=1048576,width=128,per_row=20,values=random,seed=42" \
  sell "sell@$TS" "sell@$B" "sell@$B,$TS" "sell@$U,$TS" "sell@$A,$TS" csr \
  "csr@$E.reduce=threads" "csr@$OFF"
# power-law rows, L2-resident: rows longer than a block (up to ~2000) cost a second kernel
# unless their last chunk adds them (long_rows=fused)
F="$E.long_rows=fused"
dev_bench_case ba f64 "gen:barabasi_albert:n=100000,m=6,values=random,seed=42" \
  csr "csr@$OFF" "csr@$F" "csr@$F,$OFF" "csr@block_nnz=512,$F" "csr@$E.reduce=threads,$F"
# regression guards: regular rows, full occupancy
dev_bench_case band64 f64 "gen:banded:rows=1048576,width=128,per_row=20,values=random,seed=42" \
  sell "sell@$B" "sell@$U" "sell@$TS" "sell@$B,$TS"
dev_bench_case lap2d f64,f32 "gen:stencil2d:n=1448,points=5,values=random,seed=42" \
  sell "sell@$B" "sell@$A" "sell@$U" "sell@$TS"
log "done: $CSV ($(($(wc -l <"$CSV") - 1)) lines), bench status $DEV_STATUS, conformance $DEV_CONF"
dev_print_csv "$CSV"
[ "$DEV_CONF" = ok ] || DEV_STATUS=1
exit $DEV_STATUS
