#!/usr/bin/env bash
# dtans5-run.sh — on the GPU machine, from the repository root: CSR-dtANS stream version 5
# (template rows) checked on cuda, then timed against version 4 and cuSPARSE in one call.
#
#   OUT=dir MODULE_DIR=.ab/cur bash bench/dtans5-run.sh
#
# MODULE_DIR: a folder holding libzsparse-cuda.so built on the development machine (ninja -C
# build backends/cuda/libzsparse-cuda.so), carried with the working tree; build-gpu's other
# targets are used as they are when a call before this one built them, else built here without
# nvcc for the modules (bench/device-lib.sh). BUDGET_S (default 150) bounds the script: the
# benches get what the checks leave, stopped at the end of it (their CSVs are rewritten after
# each matrix, so a cut run keeps what it measured); with under 15 s left a bench is skipped.
#
# 1. conformance on cuda for the dtans formats only: the default (version 5 on the generated
#    stencils), templates=on with long rows and with raw values, templates=off (version 4):
#    N, T (deterministic, atomic, stored) and the pair against the reference, f32 and f64.
# 2. zs-bench-gpu (warm and cold, cuSPARSE's CSR, COO and SELL-32 in the same process) on the
#    3-D 27-point and 2-D 5-point stencils of the suite with dtans:templates=off (version 4)
#    and dtans:templates=on (version 5) beside: 64 values in f64 and f32, then random values in
#    f64; then other sizes and seeds of the stencil generators (f64); then band, er and rmat
#    with the default dtans (no template rows: version 4 either way), as the budget allows.
# SET=packed runs instead: the conformance of version 5's packed rows (row_kind=packed, with
# long rows and with raw values) and the default on cuda, then band and er (64 values, f64),
# rmat (64 values, f64), the random-valued band (f64), band and er (64 values, f32), each with
# dtans:row_kind=packed (version 5, packed rows) and dtans:templates=off (version 4) beside,
# and for band, er and rmat in f64 the packed rows' SpMV also with experimental.packed_unroll=2
# and 4 (nonzeros decoded that many at a time before their gathers), and rmat's with
# experimental.packed_split=16, 32, 64 (longer rows taken by the whole warp; a process of its
# own, without cuSPARSE).
# SET=perm runs instead: the conformance of version 5's packed rows with the rows by length and
# the columns by count (row_perm, col_perm; with long rows, with raw values, rows alone), then
# R-MAT scale 22 (64 values f64, then f32, then random values f64) with dtans:templates=off
# (version 4, rows by length and columns by count too), packed rows with the rows by length and
# the columns by count, and with the rows by length alone, beside cuSPARSE; then packed rows
# ordered with experimental.packed_unroll=2 (f64, no cuSPARSE), as the budget allows.
# SET=perm2: the same conformance, then the packed rows' value dictionary by warp shuffles
# (experimental.packed_dict=shfl) against the shared-memory copies: R-MAT with rows by length and
# columns by count (64 values f64, beside version 4 and cuSPARSE; then f32), the banded matrix and
# Erdős–Rényi (64 values f64, packed rows in natural order, no cuSPARSE).
# SET=random: the default's conformance as above, then the random-valued 3-D 27-point stencil,
# 2-D 5-point stencil and banded matrix of the suite in f32 and f64 with the default dtans (what
# a user gets), version 4 (templates=off) and packed rows with raw values beside cuSPARSE.
# Output in $OUT: conformance.txt, bench-*.csv/.md/.log/.err, run.log.
set -uo pipefail

# shellcheck source=bench/device-lib.sh
. "$(dirname "$0")/device-lib.sh"
OUT=${OUT:-$PWD/dtans5-out}
BUDGET_S=${BUDGET_S:-150}
if [ -z "${MODULE_DIR:-}" ] || [ ! -f "$MODULE_DIR/libzsparse-cuda.so" ]; then
  echo "dtans5-run.sh: set MODULE_DIR to a folder holding libzsparse-cuda.so" >&2
  exit 2
fi
ZS_MODULE_DIR=$(cd "$MODULE_DIR" && pwd)
export ZS_MODULE_DIR
mkdir -p "$OUT"
dev_begin dtans5 >"$OUT/run.log" 2>&1
left() { echo $((BUDGET_S - (SECONDS - DEV_START))); }

B=build-gpu
if [ ! -x "$B/bench/gpu/zs-bench-gpu" ] || [ ! -x "$B/tests/conformance/conformance" ]; then
  dev_build_bg
  # not in a pipeline: `wait` must run in the shell that started the build
  dev_build_wait >"$OUT/build-wait.txt"
  tee -a "$OUT/run.log" <"$OUT/build-wait.txt"
fi
log "build ready; $(left) s left" | tee -a "$OUT/run.log"

formats=(--format dtans --format "dtans:templates=on,long_rows=20" --format
  "dtans:templates=on,values=raw" --format dtans:templates=off)
[ "${SET:-}" = packed ] && formats=(--format dtans --format "dtans:row_kind=packed,long_rows=20"
  --format "dtans:row_kind=packed,values=raw")
ordered=row_kind=packed,row_order=length,col_order=frequency
[ "${SET:-}" = perm ] || [ "${SET:-}" = perm2 ] && formats=(--format "dtans:$ordered,long_rows=20"
  --format "dtans:$ordered,values=raw" --format "dtans:row_kind=packed,row_order=length")
timeout 45 "$B/tests/conformance/conformance" --require cuda --random-only "${formats[@]}" \
  >"$OUT/conformance.txt" 2>&1
log "conformance cuda (dtans): rc $? $(grep -c '^FAIL' "$OUT/conformance.txt") FAIL lines" |
  tee -a "$OUT/run.log"

bench() { # NAME, then zs-bench-gpu arguments; stopped when the budget is spent
  local name=$1 t
  shift
  t=$(left)
  if [ "$t" -lt 15 ]; then
    log "bench $name: skipped, budget spent" | tee -a "$OUT/run.log"
    return
  fi
  timeout --kill-after=5 "$t" "$B/bench/gpu/zs-bench-gpu" --csv "$OUT/bench-$name.csv" \
    --md "$OUT/bench-$name.md" "$@" >"$OUT/bench-$name.log" 2>"$OUT/bench-$name.err"
  log "bench $name: rc $?; $(left) s left" | tee -a "$OUT/run.log"
}

# the suite's matrices at full size, as generator specs (values added per bench)
st27=gen:stencil3d:n=160,points=27 lap2d=gen:stencil2d:n=4096,points=5
band=gen:banded:rows=8388608,width=128,per_row=20 er=gen:erdos_renyi:rows=4194304,per_row=16

if [ "${SET:-}" = random ]; then
  rnd=(--format dtans --format dtans:templates=off --format "dtans:row_kind=packed,values=raw"
    --reps 10 --warmup 2)
  bench random-f32 "${rnd[@]}" --types f32 "$st27,values=random,seed=42" \
    "$band,values=random,seed=42" "$lap2d,values=random,seed=42"
  bench random-f64 "${rnd[@]}" --types f64 "$st27,values=random,seed=42" \
    "$band,values=random,seed=42" "$lap2d,values=random,seed=42"
  log "done in $((SECONDS - DEV_START)) s" | tee -a "$OUT/run.log"
  exit 0
fi
if [ "${SET:-}" = perm2 ]; then
  set64=values=set,distinct=64,seed=42
  rmat=gen:rmat:scale=22,per_row=16,$set64
  shfl=(--format dtans:templates=off --format "dtans:$ordered"
    --format "dtans:$ordered@experimental.packed_dict=shfl" --reps 10 --warmup 2)
  bench shfl-rmat "${shfl[@]}" --types f64 "$rmat"
  natural=(--no-vendor --format dtans:row_kind=packed
    --format dtans:row_kind=packed@experimental.packed_dict=shfl --reps 10 --warmup 2)
  bench shfl-band-er "${natural[@]}" --types f64 \
    "$band,$set64" "$er,$set64"
  bench shfl-rmat-f32 "${shfl[@]}" --types f32 "$rmat"
  log "done in $((SECONDS - DEV_START)) s" | tee -a "$OUT/run.log"
  exit 0
fi
if [ "${SET:-}" = perm ]; then
  perm=(--format dtans:templates=off --format "dtans:$ordered"
    --format "dtans:row_kind=packed,row_order=length" --reps 10 --warmup 2)
  rmat=gen:rmat:scale=22,per_row=16
  bench perm-set "${perm[@]}" --types f64 "$rmat,values=set,distinct=64,seed=42"
  bench perm-f32 "${perm[@]}" --types f32 "$rmat,values=set,distinct=64,seed=42"
  bench perm-random "${perm[@]}" --types f64 "$rmat,values=random,seed=42"
  bench perm-unroll --no-vendor --no-cold --reps 10 --warmup 2 --types f64 \
    --format "dtans:$ordered@experimental.packed_unroll=2" "$rmat,values=set,distinct=64,seed=42"
  log "done in $((SECONDS - DEV_START)) s" | tee -a "$OUT/run.log"
  exit 0
fi
if [ "${SET:-}" = packed ]; then
  v4p=(--format dtans:templates=off --format dtans:row_kind=packed --reps 10 --warmup 2)
  set64=values=set,distinct=64,seed=42
  unroll=(--format dtans:row_kind=packed@experimental.packed_unroll=2
    --format dtans:row_kind=packed@experimental.packed_unroll=4)
  bench packed-set "${v4p[@]}" "${unroll[@]}" --types f64 "$band,$set64" "$er,$set64"
  bench packed-rmat "${v4p[@]}" "${unroll[@]}" --types f64 "gen:rmat:scale=22,per_row=16,$set64"
  split=(--format dtans:row_kind=packed@experimental.packed_split=16
    --format dtans:row_kind=packed@experimental.packed_split=32
    --format dtans:row_kind=packed@experimental.packed_split=64)
  bench packed-split --no-vendor --reps 10 --warmup 2 "${split[@]}" --types f64 \
    "gen:rmat:scale=22,per_row=16,$set64"
  bench packed-random "${v4p[@]}" --types f64 "$band,values=random,seed=42"
  bench packed-f32 "${v4p[@]}" --types f32 "$band,$set64" "$er,$set64"
  log "done in $((SECONDS - DEV_START)) s" | tee -a "$OUT/run.log"
  exit 0
fi
v45=(--format dtans:templates=off --format dtans:templates=on --reps 10 --warmup 2)
bench stencils-set "${v45[@]}" "$st27,values=set,distinct=64,seed=42" \
  "$lap2d,values=set,distinct=64,seed=42"
bench stencils-random "${v45[@]}" --types f64 "$st27,values=random,seed=42" \
  "$lap2d,values=random,seed=42"
bench stencils-other "${v45[@]}" --types f64 \
  gen:stencil3d:n=100,points=27,values=set,distinct=64,seed=7 \
  gen:stencil3d:n=200,points=7,values=set,distinct=64,seed=3 \
  gen:stencil2d:n=2048,points=9,values=set,distinct=64,seed=5 \
  gen:stencil3d:n=120,points=27,values=set,distinct=16,seed=9
bench others --format dtans --reps 10 --warmup 2 --types f64 \
  "$band,values=set,distinct=64,seed=42" "$er,values=set,distinct=64,seed=42" \
  gen:rmat:scale=22,per_row=16,values=set,distinct=64,seed=42
log "done in $((SECONDS - DEV_START)) s" | tee -a "$OUT/run.log"
