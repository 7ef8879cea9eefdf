#!/usr/bin/env bash
# device-python.sh — on the GPU machine, from the repository root: the Python package's tests
# (every case on cuda beside ref and cpu) and its benches with the cuda backend, into $OUT.
#
#   OUT=/some/dir bash bench/python/device-python.sh
#   MODULE_DIR=.ab/cur OUT=... bash bench/python/device-python.sh   # cuda module built elsewhere
#
# Environment: OUT (default ./device-out); MODULE_DIR (a folder holding libzsparse-cuda.so built
# on the development machine and carried: everything else is built here in about 20 s; without
# it the module is built here too, about 4 minutes of nvcc); PY (the interpreter, default
# python3: on the GPU image the one that has NumPy, SciPy and pytest); MATRICES (bench_scipy's
# --matrix list, default two generated ones); TEST_TIMEOUT_S (default 300).
#
# The tests need pytest. When $PY lacks it the script says so and runs the benches only: carry
# pytest and its needs as wheels (pytest, pluggy, iniconfig, packaging) and put them on
# PYTHONPATH before calling. The real-matrix cases need
# shared/matrices inside the checkout (git-ignored); they skip, saying so, without it.
set -euo pipefail

# shellcheck source=bench/device-lib.sh
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
PY=${PY:-python3}
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300}
dev_begin python

log "$($PY -c 'import sys, numpy, scipy; print(sys.executable, sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)')"
have_pytest=1
$PY -c 'import pytest' 2>/dev/null || have_pytest=0

# Build: the library and the tool here; the cuda module from MODULE_DIR, else here as well. The
# interpreter is named so that meson's Python tests run under it.
setup=(-Dcuda=enabled -Dhip=disabled -Dbuildtype=release "-Dpython_interpreter=$(command -v "$PY")")
if [ -n "${MODULE_DIR:-}" ]; then
  meson setup build-gpu "${setup[@]}" >"$OUT/gpu-build.log" 2>&1
  # shellcheck disable=SC2046 # one target per word
  ninja -C build-gpu $(dev_targets_but_modules build-gpu) >>"$OUT/gpu-build.log" 2>&1
  export ZS_MODULE_DIR=$PWD/$MODULE_DIR
else
  { meson setup build-gpu "${setup[@]}" && ninja -C build-gpu; } >"$OUT/gpu-build.log" 2>&1
fi
log "built: $(tail -n 1 "$OUT/gpu-build.log")"
export ZSPARSE_LIBRARY=$PWD/build-gpu/libzsparse.so PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
$PY -c 'import zsparse; print([(b["name"], b["usable"], b["detail"]) for b in zsparse.devices()["backends"]])' |
  tee "$OUT/backends.txt"

if [ "$have_pytest" = 1 ]; then
  # -rs lists every skip with its reason: a cuda case skipped here would be a failure to run it.
  timeout "$TEST_TIMEOUT_S" meson test -C build-gpu --no-rebuild python --test-args='-rs' \
    >"$OUT/python-tests.txt" 2>&1 || true
  grep -E '^(Ok|Fail|Skipped|Timeout):' "$OUT/python-tests.txt" || true
  cp build-gpu/meson-logs/testlog.txt "$OUT/python-testlog.txt" 2>/dev/null || true
  grep -E 'passed|failed|SKIPPED' "$OUT/python-testlog.txt" | head -n 20 || true
  log "tests done (every case's log: python-testlog.txt)"
else
  log "no pytest for $PY: tests not run (carry the wheels, see the header)"
fi

$PY bench/python/bench_overhead.py --backend cpu --backend cuda --number 200 --repeat 100 \
  --json "$OUT/overhead.json" --csv "$OUT/overhead.csv" | tee "$OUT/overhead.txt"
# shellcheck disable=SC2086 # one --matrix per word
$PY bench/python/bench_scipy.py --backend cpu --backend cuda --format csr --format dtans \
  ${MATRICES:---matrix stencil2d:n=1000 --matrix erdos_renyi:rows=1000000,per_row=16,seed=2} \
  --json "$OUT/scipy.json" --csv "$OUT/scipy.csv" | tee "$OUT/scipy.txt"
log "done"
