#!/usr/bin/env bash
# device-run.sh — on the GPU machine, from the repo root: configure, build, test, then benchmark
# zsparse's cuda backend beside cuSPARSE, all in one go; logs, CSV, JSON and the summary go to $OUT.
#
#   OUT=/some/dir bash bench/device-run.sh              # default suite (lap2d st27 er rmat band)
#   BENCH_ARGS='--quick suite' bash bench/device-run.sh # what zs-bench-gpu benches instead
#   MODULE_DIR=.ab/cur OUT=... bash bench/device-run.sh # the cuda module built elsewhere (below)
#
# Environment: OUT (default ./device-out), BUILD (default build-gpu), BENCH_ARGS (default
# "suite"), BUDGET_S (seconds for the whole script, default 540: the bench gets what is left and
# is stopped at the end of it; its CSV/JSON are rewritten after each matrix, so a cut run keeps
# what it measured), TEST_TIMEOUT_S (default 240), BASELINE (the bench.csv of an earlier run: the
# kernels both runs measured are compared by bench/compare.py, slowest change first, into
# $OUT/compare.txt; a kernel over 5 % slower is listed, and the script's status is unchanged),
# MODULE_DIR (a folder holding libzsparse-cuda.so built on the development machine, `ninja -C
# build` there, copied into an ignored folder that the device call carries: everything but the
# GPU modules is built here, about 20 s instead of 4 minutes of nvcc, and the tests and the
# bench load the module through ZS_MODULE_DIR).
set -euo pipefail

# shellcheck source=bench/device-lib.sh
. "$(dirname "$0")/device-lib.sh" # dev_targets_but_modules
OUT=${OUT:-$PWD/device-out}
BUILD=${BUILD:-build-gpu}
BUDGET_S=${BUDGET_S:-540}
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-240}
mkdir -p "$OUT"
start=$SECONDS
log() { printf '[device-run %4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$OUT/device-run.log"; }
fail_tail() { # file, lines: show why a step failed, then stop
  echo "---- last $2 lines of $1 ----"
  tail -n "$2" "$1"
  exit 1
}

if [ ! -f meson.build ] || [ ! -d bench ]; then
  echo "device-run.sh: run it from the repository root" >&2
  exit 2
fi

# The tests read ../shared/matrices; on the GPU machine only a shared/ inside the checkout
# travels (copy ../shared/matrices there, git-ignored), so point ../shared at it.
if [ ! -e ../shared ] && [ -d shared/matrices ]; then
  ln -s "$PWD/shared" ../shared
fi

log "host $(uname -n), $(nproc) cores; $(nvcc --version | tail -n 1 || echo 'nvcc: not found')"
# Queries only: nothing about the GPU's settings is changed.
if command -v nvidia-smi >/dev/null; then
  { nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } \
    >"$OUT/nvidia-smi.txt" 2>&1 || true
else
  echo "nvidia-smi: not found" >"$OUT/nvidia-smi.txt"
fi
cat "$OUT/nvidia-smi.txt"

log "meson setup $BUILD (cuda enabled, hip disabled, release)"
setup_args=(-Dcuda=enabled -Dhip=disabled -Dbuildtype=release)
if [ -f "$BUILD/build.ninja" ]; then
  meson setup --reconfigure "$BUILD" "${setup_args[@]}" >"$OUT/setup.log" 2>&1 || fail_tail "$OUT/setup.log" 40
else
  rm -rf "$BUILD"
  meson setup "$BUILD" "${setup_args[@]}" >"$OUT/setup.log" 2>&1 || fail_tail "$OUT/setup.log" 40
fi

test_args=()
if [ -n "${MODULE_DIR:-}" ]; then
  if [ ! -f "$MODULE_DIR/libzsparse-cuda.so" ]; then
    echo "device-run.sh: MODULE_DIR=$MODULE_DIR holds no libzsparse-cuda.so" >&2
    exit 2
  fi
  ZS_MODULE_DIR=$(cd "$MODULE_DIR" && pwd)
  export ZS_MODULE_DIR
  mapfile -t targets < <(dev_targets_but_modules "$BUILD")
  log "ninja -C $BUILD: ${#targets[@]} targets, not the GPU modules (cuda module: $ZS_MODULE_DIR)"
  ninja -C "$BUILD" "${targets[@]}" >"$OUT/build.log" 2>&1 || fail_tail "$OUT/build.log" 60
  test_args=(--no-rebuild)
else
  log "ninja -C $BUILD"
  ninja -C "$BUILD" >"$OUT/build.log" 2>&1 || fail_tail "$OUT/build.log" 60
fi
log "build done"

log "meson test (timeout ${TEST_TIMEOUT_S}s)"
set +e
timeout --kill-after=15 "$TEST_TIMEOUT_S" meson test -C "$BUILD" "${test_args[@]}" --print-errorlogs \
  >"$OUT/test.log" 2>&1
tests_rc=$?
set -e
cp -f "$BUILD/meson-logs/testlog.txt" "$OUT/testlog.txt" 2>/dev/null || true
tests_summary=$({ grep -E '^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): ' "$OUT/test.log" || true; } | tr -s ' ' | paste -sd ' ' -)
log "tests: exit $tests_rc; ${tests_summary:-no summary (see test.log)}"
if [ "$tests_rc" -ne 0 ]; then
  grep -E '(FAIL|TIMEOUT|ERROR) ' "$OUT/test.log" | head -n 30 || true
fi
# GPU tests must run here, not skip: list any that skipped.
grep -E ' SKIP ' "$OUT/test.log" | head -n 30 >"$OUT/skipped.txt" || true
if [ -s "$OUT/skipped.txt" ]; then
  log "tests that SKIPPED on the GPU machine:"
  cat "$OUT/skipped.txt"
fi

log "zsparse devices"
"$BUILD/tools/zsparse/zsparse" devices 2>&1 | tee "$OUT/devices.txt" || true

bench=$BUILD/bench/gpu/zs-bench-gpu
read -r -a bench_args <<<"${BENCH_ARGS:-suite}"
left=$((BUDGET_S - (SECONDS - start) - 10))
[ "$left" -lt 60 ] && left=60
log "bench: zs-bench-gpu ${bench_args[*]} (stopped after ${left}s; progress in bench.err)"
set +e
timeout --kill-after=10 "$left" "$bench" --csv "$OUT/bench.csv" --json "$OUT/bench.json" \
  --md "$OUT/summary.md" "${bench_args[@]}" >"$OUT/bench.log" 2>"$OUT/bench.err"
bench_rc=$?
set -e
case $bench_rc in
  0) bench_state="all checks passed" ;;
  1) bench_state="FAILURES (checks or errors)" ;;
  77) bench_state="skipped: no CUDA device" ;;
  124 | 137) bench_state="STOPPED at the time budget (partial CSV/JSON kept)" ;;
  *) bench_state="exit $bench_rc" ;;
esac
log "bench: $bench_state"

echo
echo "==== bench kernels (bench.log) ===="
grep -vE '^(\||## |Read ceiling|$)' "$OUT/bench.log" | head -n 400 || true
if grep -q '\*\*\*' "$OUT/bench.err"; then
  echo
  echo "==== bench failures (bench.err) ===="
  grep -A1 '\*\*\*' "$OUT/bench.err" | head -n 60
fi
if [ "$bench_rc" -ne 0 ] && [ "$bench_rc" -ne 1 ]; then
  echo "---- last 20 lines of bench.err ----"
  tail -n 20 "$OUT/bench.err"
fi
echo
echo "==== summary ===="
echo "tests: exit $tests_rc; ${tests_summary:-see test.log}"
echo "bench: $bench_state; files in $OUT: bench.csv bench.json summary.md bench.log bench.err test.log"
if [ -s "$OUT/summary.md" ]; then
  cat "$OUT/summary.md"
else
  echo "(no summary.md: the bench did not finish a matrix)"
fi
if [ -n "${BASELINE:-}" ] && [ -s "$OUT/bench.csv" ]; then
  echo
  echo "==== against $BASELINE (compare.txt) ===="
  python3 bench/compare.py "$BASELINE" "$OUT/bench.csv" >"$OUT/compare.txt" 2>&1 || true
  { grep -E 'SLOWER|faster' "$OUT/compare.txt" || true; } | head -n 40
  tail -n 1 "$OUT/compare.txt"
fi
log "done"
if [ "$tests_rc" -ne 0 ] || { [ "$bench_rc" -ne 0 ] && [ "$bench_rc" -ne 124 ] && [ "$bench_rc" -ne 137 ]; }; then
  exit 1
fi
