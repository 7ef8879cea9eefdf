#!/usr/bin/env bash
# device-split.sh — on the GPU machine, from the repository root: CSR's nonzero-split kernel
# (operator option kernel=split: every thread an equal share of rows + nonzeros) against the
# row-block kernel (the default), our COO and cuSPARSE, in one process per matrix, after a
# correctness run, in one call of about 100 s.
#
#   OUT=$OUT MODULE_DIR=DIR [SET=tiles|stage|spans] bash bench/gpu/device-split.sh
#
# SET=tiles (default): tile sizes and evict-first on skewed and regular matrices.
# SET=spans: the rows over several tiles finished by a second kernel (the default) or by the tile
# that ends each (experimental.split_spans=wait: no second launch), on R-MAT (f32, f64, scale
# 14 and 19), Barabási-Albert and a 2-D stencil, into DEVICE-split-spans.csv.
# SET=stage: the staging of a tile (experimental.split_stage): the default per value type
# (csr@kernel=split: 16-byte loads and row ends first in f32, row ends first in f64) beside
# plain and each forced variant on R-MAT (f32, f64, scale 14; with 24 per row and with few
# values, the default and plain only) and two regular matrices, into DEVICE-split-default.csv.
# (An earlier SET=stage also timed persistent pipelined blocks and long_rows=fused, both
# removed since: bench/data/h100-split-stage.csv.)
#
# MODULE_DIR (required): a folder holding libzsparse-cuda.so built on the development machine.
# Builds build-gpu without the GPU modules (bench/device-lib.sh), then:
#   1. conformance on cuda against ref for csr (every kernel choice, kernel=split among them:
#      tests/conformance csr-split, csr-split256); a failure is reported and the timing still
#      runs (each timed kernel is checked again there);
#   2. zs-bench-gpu per case below: the default csr and coo, csr@kernel=split at several tile
#      sizes (block_nnz), cuSPARSE's formats; warm medians of REPS calls (default 20).
#      Cases left when BUDGET_S (default 170) of the whole script has passed are skipped.
# Writes to $OUT: conformance.txt, DEVICE-split.csv (SET=tiles) or DEVICE-split-default.csv
# (zs-bench-gpu's columns, the case name first), bench-NAME.log, gpu-build.log, nvidia-smi.txt.
# DEVICE is h100 or h200.
set -euo pipefail

if [ ! -f meson.build ] || [ ! -f bench/gpu/zs_bench_gpu.cu ]; then
  echo "device-split.sh: run it from the repository root" >&2
  exit 2
fi
# shellcheck source=bench/device-lib.sh disable=SC1091
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
BUDGET_S=${BUDGET_S:-170}
REPS=${REPS:-20}
dev_begin split
dev_gpu_info # $OUT/nvidia-smi.txt, DEVICE
dev_module_dir device-split.sh # ZS_MODULE_DIR from MODULE_DIR
log "build (module from $MODULE_DIR)"
dev_build_bg
dev_build_wait

# 1. correctness (not a gate: a wrong kernel shows as FAIL in the timing's check too)
dev_conformance 90 csr

# 2. timing: NAME TYPES SPEC FORMATS... (one zs-bench-gpu process per case)
M=../shared/matrices
S=kernel=split
DEV_STATUS=0
if [ "${SET:-tiles}" = stage ]; then
  CSV=$OUT/$DEVICE-split-default.csv
  rm -f "$CSV"
  G=experimental.split_stage
  stages=("csr@$S" "csr@$S,$G=plain" "csr@$S,$G=vector" "csr@$S,$G=early" "csr@$S,$G=vector_early")
  dev_bench_case rmat f32,f64 "gen:rmat:scale=19,per_row=16,values=random,seed=42" "${stages[@]}"
  dev_bench_case rmat-s14 f64 "gen:rmat:scale=14,per_row=8,values=random,seed=21" "${stages[@]}"
  dev_bench_case rmat-s19 f32 "gen:rmat:scale=19,per_row=24,values=set,distinct=64,seed=22" \
    "${stages[@]:0:2}"
  dev_bench_case rmat-set f64 "gen:rmat:scale=19,per_row=16,values=set,distinct=64,seed=42" \
    "${stages[@]:0:2}"
  dev_bench_case lap2d f32 "gen:stencil2d:n=1448,points=5,values=random,seed=42" \
    "${stages[@]:0:2}" "csr@$S,$G=vector_early"
  dev_bench_case band-set f32 \
    "gen:banded:rows=1048576,width=128,per_row=20,values=set,distinct=64,seed=42" \
    "${stages[@]:0:2}" "csr@$S,$G=vector_early"
  log "done: $CSV ($(($(wc -l <"$CSV") - 1)) lines), bench status $DEV_STATUS, conformance $DEV_CONF"
  dev_print_csv "$CSV"
  [ "$DEV_CONF" = ok ] || DEV_STATUS=1
  exit $DEV_STATUS
fi
if [ "${SET:-tiles}" = spans ]; then
  CSV=$OUT/$DEVICE-split-spans.csv
  rm -f "$CSV"
  W="csr@$S,experimental.split_spans=wait"
  dev_bench_case rmat f32,f64 "gen:rmat:scale=19,per_row=16,values=random,seed=42" "csr@$S" "$W"
  dev_bench_case rmat-set f64,f32 "gen:rmat:scale=19,per_row=16,values=set,distinct=64,seed=42" \
    "csr@$S" "$W"
  dev_bench_case rmat-s14 f64 "gen:rmat:scale=14,per_row=8,values=random,seed=21" "csr@$S" "$W"
  dev_bench_case rmat-s19 f32 "gen:rmat:scale=19,per_row=24,values=set,distinct=64,seed=22" \
    "csr@$S" "$W"
  dev_bench_case ba f64 "gen:barabasi_albert:n=100000,m=6,values=random,seed=42" "csr@$S" "$W"
  dev_bench_case lap2d f32 "gen:stencil2d:n=1448,points=5,values=random,seed=42" "csr@$S" "$W"
  log "done: $CSV ($(($(wc -l <"$CSV") - 1)) lines), bench status $DEV_STATUS, conformance $DEV_CONF"
  dev_print_csv "$CSV"
  [ "$DEV_CONF" = ok ] || DEV_STATUS=1
  exit $DEV_STATUS
fi
skewed=("csr@$S" "csr@$S,block_nnz=512" "csr@$S,block_nnz=2048" "csr@$S,experimental.evict_first=off")
regular=("csr@$S" "csr@$S,block_nnz=1024")
CSV=$OUT/$DEVICE-split.csv
rm -f "$CSV"
dev_bench_case rmat f32,f64 "gen:rmat:scale=19,per_row=16,values=random,seed=42" "${skewed[@]}"
dev_bench_case rmat-s19 f32 "gen:rmat:scale=19,per_row=24,values=set,distinct=64,seed=22" "${skewed[@]}"
dev_bench_case rmat-s14 f64 "gen:rmat:scale=14,per_row=8,values=random,seed=21" "${skewed[@]}" \
  "csr@$S,block_nnz=256"
dev_bench_case rmat-set f64,f32 "gen:rmat:scale=19,per_row=16,values=set,distinct=64,seed=42" \
  "csr@$S" "csr@$S,block_nnz=2048"
dev_bench_case lap2d f32,f64 "gen:stencil2d:n=1448,points=5,values=random,seed=42" "${regular[@]}"
dev_bench_case band-set f32 "gen:banded:rows=1048576,width=128,per_row=20,values=set,distinct=64,seed=42" \
  "${regular[@]}"
dev_bench_case er f32 "gen:erdos_renyi:rows=524288,per_row=16,values=random,seed=42" \
  "csr@$S" "csr@$S,block_nnz=2048"
dev_bench_case ba f64 "gen:barabasi_albert:n=100000,m=6,values=random,seed=42" "csr@$S" \
  "csr@$S,block_nnz=512" "csr@$S,block_nnz=2048"
dev_bench_case st27 f32 "gen:stencil3d:n=80,points=27,values=random,seed=42" "${regular[@]}"
dev_bench_case memplus f64,f32 "$M/memplus.mtx.gz" "csr@$S" "csr@$S,block_nnz=256" \
  "csr@$S,block_nnz=1024" csr@block_nnz=1024
log "done: $CSV ($(($(wc -l <"$CSV") - 1)) lines), bench status $DEV_STATUS, conformance $DEV_CONF"
dev_print_csv "$CSV"
[ "$DEV_CONF" = ok ] || DEV_STATUS=1
exit $DEV_STATUS
