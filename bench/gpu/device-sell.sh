#!/usr/bin/env bash
# device-sell.sh — on the GPU machine, from the repository root: SELL-C-sigma against our CSR and
# cuSPARSE (CSR ALG1/ALG2, COO, SELL-32) on the GPU suite's random-valued matrices, f64 and f32,
# after a correctness gate, in one call of about 150 s.
#
#   OUT=$OUT MODULE_DIR=.ab/sell bash bench/gpu/device-sell.sh
#
# MODULE_DIR (required): a folder holding libzsparse-cuda.so built on the development machine
# (`bash bench/module-variant.sh sell`, carried with the call). Builds build-gpu without the GPU
# modules (bench/device-lib.sh, dev_build_bg), then:
#   1. conformance on cuda against ref for sell with its test variants (SpMV, SpMVT, pair, f32
#      and f64, alpha/beta): a failure stops the script before any timing;
#   2. zs-bench-gpu per matrix of the suite (lap2d, st27, er, band, then rmat, whose padding
#      makes SELL's blob several times CSR's), FORMATS (default `sell`) beside csr, coo and
#      cuSPARSE, warm medians of REPS calls (default 10), no cold-cache timing; matrices left
#      when BUDGET_S (default 150) of the whole script has passed are skipped.
# Writes to $OUT: conformance.txt, DEVICE-sell.csv (zs-bench-gpu's columns, the suite's matrix
# names), bench-NAME.log, gpu-build.log, nvidia-smi.txt. DEVICE is h100 or h200 from the GPU's name.
set -euo pipefail

if [ ! -f meson.build ] || [ ! -f bench/gpu/zs_bench_gpu.cu ]; then
  echo "device-sell.sh: run it from the repository root" >&2
  exit 2
fi
# shellcheck source=bench/device-lib.sh disable=SC1091
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
BUDGET_S=${BUDGET_S:-150}
REPS=${REPS:-10}
FORMATS=${FORMATS:-sell}
dev_begin sell # log(), ../shared, $OUT, the GPU listed
dev_gpu_info   # $OUT/nvidia-smi.txt, DEVICE

# The module comes from the development machine (about 20 s of building here instead of
# minutes of nvcc): everything else is built by dev_build_bg.
dev_module_dir device-sell.sh # ZS_MODULE_DIR from MODULE_DIR
log "build (module from $MODULE_DIR)"
dev_build_bg
dev_build_wait

# 1. correctness: every product of sell and its variants on cuda against ref
variants=(--format sell --format "sell:c=4,sigma=8" --format sell:c=1 --format sell:sigma=64
  --format "sell:c=8,sigma=1024" --format "sell:c=64,sigma=128")
if ! OMP_WAIT_POLICY=passive timeout 60 build-gpu/tests/conformance/conformance --require cuda \
  --random-only "${variants[@]}" >"$OUT/conformance.txt" 2>&1; then
  grep -E '^(FAIL|not ok)|failed|error' "$OUT/conformance.txt" | head -n 30
  tail -n 3 "$OUT/conformance.txt"
  echo "device-sell.sh: conformance on cuda failed: no timing" >&2
  exit 1
fi
log "conformance: $(tail -n 1 "$OUT/conformance.txt")"

# 2. timing, one matrix per call of the bench (a cut run keeps the matrices it finished)
suite=(
  "lap2d stencil2d:n=4096,points=5"
  "st27 stencil3d:n=160,points=27"
  "er erdos_renyi:rows=4194304,per_row=16"
  "band banded:rows=8388608,width=128,per_row=20"
  "rmat rmat:scale=22,per_row=16"
)
fmt_args=()
for f in $FORMATS; do fmt_args+=(--format "$f"); done
csv=$OUT/$DEVICE-sell.csv
rm -f "$csv"
status=0
for m in "${suite[@]}"; do
  name=${m%% *} spec="${m#* },values=random,seed=42"
  left=$((BUDGET_S - (SECONDS - DEV_START)))
  if [ "$left" -lt 10 ]; then
    log "$name skipped: budget spent"
    continue
  fi
  log "$name ($spec), ${left}s left"
  timeout "$left" build-gpu/bench/gpu/zs-bench-gpu --types f64,f32 --reps "$REPS" --warmup 2 \
    --no-cold "${fmt_args[@]}" --csv "$OUT/part.csv" "gen:$spec" >"$OUT/bench-$name.log" 2>&1 ||
    status=1
  [ -f "$OUT/part.csv" ] || continue
  dev_append_csv "$OUT/part.csv" "$name" "$csv" # the suite's name for the generator spec
done
log "done: $csv ($(($(wc -l <"$csv") - 1)) lines), bench status $status"
# SpMV warm medians side by side: matrix, type, kernel, µs
awk -F, 'NR > 1 && $8 == "N" { printf "%-6s %-4s %-10s %-14s %9.1f\n", $1, $5, $6, $7, $10 }' "$csv"
exit $status
