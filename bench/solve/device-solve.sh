#!/usr/bin/env bash
# device-solve.sh — on the GPU machine, from the repo root: BiCG to 1e-8 on the 2-D Laplacian
# 4096² and the dominant Erdős–Rényi matrix, zsparse cuda formats beside the cuSPARSE BiCG
# baseline; solve.csv, report.md, PNGs and the log go to $OUT (flat, 5 files).
#
#   OUT=/some/dir bash bench/solve/device-solve.sh
#
# Environment (defaults in brackets): OUT [./solve-out], BUILD [build-gpu: configured and built
# if missing], BUDGET_S [330: the whole script; each step is stopped at what is left, and a step
# that cannot start in time is skipped, so the order below is the priority], CASES ["csr/atomic
# dtans/atomic csr/deterministic cci/atomic gcsb/atomic": format/transpose product], LAP
# [gen:stencil2d:n=4096], ER [gen:erdos_renyi:rows=4194304,per_row=16, made dominant with
# --dominant 1], LAP_DOMINANT [empty: the plain SPD Laplacian], TOL [1e-8], MAXIT [20000],
# LAP_REPS [2], ER_REPS [5], BACKEND [cuda; cpu for a dry run without a GPU].
set -euo pipefail

OUT=${OUT:-$PWD/solve-out}
BUILD=${BUILD:-build-gpu}
BUDGET_S=${BUDGET_S:-330}
CASES=${CASES:-csr/atomic dtans/atomic csr/deterministic cci/atomic gcsb/atomic}
LAP=${LAP:-gen:stencil2d:n=4096}
ER=${ER:-gen:erdos_renyi:rows=4194304,per_row=16}
TOL=${TOL:-1e-8} MAXIT=${MAXIT:-20000} BACKEND=${BACKEND:-cuda}
REPORT_S=25 # kept back for merging and the report

if [ ! -f meson.build ] || [ ! -d bench/solve ]; then
  echo "device-solve.sh: run it from the repository root" >&2
  exit 2
fi
mkdir -p "$OUT"
LOG=$OUT/device-solve.log
: >"$LOG"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
log() { printf '[device-solve %4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$LOG"; }
left() { echo $((BUDGET_S - (SECONDS - start) - REPORT_S)); }

# The GPU machine's copy of the checkout may carry stale git metadata: pass COMMIT=<hash> from
# the machine that sent the tree.
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}
log "host $(uname -n), $(nproc) cores, commit $COMMIT"
{ command -v nvidia-smi >/dev/null && nvidia-smi -L || echo "nvidia-smi: not available"; } 2>&1 | tee -a "$LOG"

# ---- build: only what this script runs (the module is dlopen'ed from the build tree) ----
if [ ! -f "$BUILD/build.ninja" ]; then
  log "meson setup $BUILD (cuda enabled, hip disabled, release)"
  timeout 120 meson setup "$BUILD" -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >>"$LOG" 2>&1 ||
    { tail -n 30 "$LOG"; exit 1; }
fi
targets=(bench/solve/zs-bench-solve tools/zsparse/zsparse)
[ "$BACKEND" = cuda ] && targets+=(bench/solve/bicg-cusparse backends/cuda/libzsparse-cuda.so)
log "ninja -C $BUILD ${targets[*]}"
t=$(left) && [ "$t" -lt 60 ] && t=60
timeout "$t" ninja -C "$BUILD" "${targets[@]}" >>"$LOG" 2>&1 || { tail -n 40 "$LOG"; exit 1; }
log "build done"
timeout 60 "$BUILD/tools/zsparse/zsparse" devices 2>&1 | tee -a "$LOG" || true

# ---- the runs: one process per matrix and case, so a crash or a time-out costs one row ----
failed=() skipped=()
step() { # name cap_s command...: the command's CSV goes to $work/<name>.csv
  local name=$1 cap=$2 t rc=0 t0=$SECONDS
  shift 2
  t=$(left)
  if [ "$t" -lt 20 ]; then
    log "SKIP $name: ${t}s left of the budget"
    skipped+=("$name")
    return 0
  fi
  [ "$t" -gt "$cap" ] && t=$cap
  log "run  $name (limit ${t}s)"
  timeout --kill-after=5 "$t" "$@" --csv "$work/$name.csv" >>"$LOG" 2>&1 || rc=$?
  case $rc in
    0) log "done $name in $((SECONDS - t0))s: $(awk -F, 'NR > 1 { print $(NF-12) ",", $(NF-10), "iterations, warm", $(NF-3), "s" }' "$work/$name.csv")" ;;
    124 | 137) log "TIMEOUT $name after ${t}s (no row)"; failed+=("$name:timeout") ;;
    *) log "FAILED $name (exit $rc; see device-solve.log)"; failed+=("$name:exit$rc") ;;
  esac
}

lap_dom=() er_dom=(--dominant 1) lap_desc="the plain SPD Laplacian"
if [ -n "${LAP_DOMINANT:-}" ]; then
  lap_dom=(--dominant "$LAP_DOMINANT") lap_desc="made dominant with margin $LAP_DOMINANT"
fi
lap=("$LAP" --reps "${LAP_REPS:-2}" "${lap_dom[@]}")
er=("$ER" --reps "${ER_REPS:-5}" "${er_dom[@]}")
common=(--tol "$TOL" --maxit "$MAXIT")
zs=("$BUILD/bench/solve/zs-bench-solve" --backend "$BACKEND" --method bicg --type f64 "${common[@]}")
if [ "$BACKEND" = cuda ]; then
  step cusparse-er 90 "$BUILD/bench/solve/bicg-cusparse" "${common[@]}" "${er[@]}"
  step cusparse-lap 150 "$BUILD/bench/solve/bicg-cusparse" "${common[@]}" "${lap[@]}"
fi
# The cheap ER runs first, then the Laplacian's in CASES order.
for m in er lap; do
  for c in $CASES; do
    fmt=${c%/*} tr=${c#*/}
    if [ "$m" = er ]; then args=("${er[@]}") cap=90; else args=("${lap[@]}") cap=150; fi
    step "$fmt-$tr-$m" "$cap" "${zs[@]}" --format "$fmt" --op-options "transpose=$tr" "${args[@]}"
  done
done

# ---- merge, report, summary ----
csvs=("$work"/*.csv)
if [ ! -e "${csvs[0]}" ]; then
  log "no CSV at all: nothing to report"
  exit 1
fi
awk 'FNR > 1 || NR == 1' "${csvs[@]}" >"$OUT/solve.csv" # one header: the first file's
log "merged $(($(wc -l <"$OUT/solve.csv") - 1)) rows into solve.csv; make_report.py"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
notes=("Run $(date -u +%Y-%m-%dT%H:%MZ) on ${gpu:-no GPU} (backend $BACKEND), commit $COMMIT, by \`bench/solve/device-solve.sh\`."
  "Systems: \`$LAP\` ($lap_desc) and \`$ER\` made diagonally dominant (\`--dominant 1\`: a_ii = Σ|a_ij| + 1); b = A x* with the same x* in both tools; BiCG from x = 0 to ‖r‖/‖b‖ ≤ $TOL, f64, no preconditioner. Warm = median of ${LAP_REPS:-2} (Laplacian) / ${ER_REPS:-5} (ER) solves after a cold one."
  "zsparse format column: format [SpMVT variant: atomic = one scatter per nonzero, deterministic = transpose index built on first use]; cuSPARSE: CSR ALG1, N and T each preprocessed (setup).")
[ ${#skipped[@]} -gt 0 ] && notes+=("Skipped for the time budget: ${skipped[*]}.")
[ ${#failed[@]} -gt 0 ] && notes+=("Failed or timed out (no row): ${failed[*]}.")
note_args=()
for n in "${notes[@]}"; do note_args+=(--note "$n"); done
repo=$PWD
(cd "$OUT" && timeout 60 python3 "$repo/bench/solve/make_report.py" --solve solve.csv -o . \
  --title "BiCG to $TOL: zsparse formats beside cuSPARSE BiCG" "${note_args[@]}") \
  >"$work/summary.txt" 2>>"$LOG" || log "make_report.py FAILED (see device-solve.log)"

echo
echo "==== BiCG time to tolerance ($OUT: $(cd "$OUT" && ls | tr '\n' ' ')) ===="
cat "$work/summary.txt"
[ ${#skipped[@]} -gt 0 ] && echo "skipped (budget): ${skipped[*]}"
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
log "done"
[ ${#failed[@]} -eq 0 ]
