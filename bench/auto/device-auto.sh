#!/usr/bin/env bash
# device-auto.sh — on the GPU machine, from the repository root: auto against exhaustive search on
# the cuda backend, cuSPARSE's formats beside, the whole GPU suite in one call of ~300 s.
#
#   OUT=$OUT MODULE_DIR=.ab/cur bash bench/auto/device-auto.sh   # the module carried: ~25 s build
#   OUT=$OUT bash bench/auto/device-auto.sh                      # builds the cuda module (~4 min)
#
# Builds in build-gpu only what the run needs (the cuda module unless MODULE_DIR holds one, the
# zsparse tool, zs-bench-auto, zs-bench-gpu), checks that the cuda backend is usable, then runs
# bench/auto/auto_bench.py over the sets `device` (the GPU suite at an eighth of its nonzeros,
# f64 and f32, SpMV and pair) and `device-more` (14 further generated cases, then the shared
# matrices) of bench/auto/cases.txt, in that order (SET=... for others), timing the candidates of
# bench/auto/candidates-device.txt (CANDIDATES=... for another list) and auto's choice. Plans are
# asked for all cases at once first (PLAN_JOBS threads), each case's encoder settings are encoded
# on JOBS threads, and each candidate is timed REPS times (samples of SAMPLE_MS ms); no case is
# started after BUDGET_S seconds of the whole script (default 270, build included: a cut run
# keeps every case it finished, and the shared matrices come last; ONLY="NAME ..." then runs
# just the named cases of the sets, e.g. those a first call did not reach). Writes to $OUT:
# DEVICE-auto.csv (one line per case, type and op, cuSPARSE's best beside), DEVICE-auto-runs.csv
# (every candidate's line), auto.log, build.log, nvidia-smi.txt. DEVICE is h100 or h200 from the
# GPU's name (the two are never mixed in one file) and plan's --device (PLAN_DEVICE overrides it).
# The shared matrices are used when shared/matrices was copied into the checkout (git-ignored)
# first. PLAN_TIME=SPEC also measures the model's choice time for that matrix on one core of this
# host (DEVICE-auto-plan-time.csv, ~40 s more), e.g. PLAN_TIME=erdos_renyi:rows=6250000,per_row=16,seed=42.
set -euo pipefail

if [ ! -f meson.build ] || [ ! -f bench/auto/auto_bench.py ]; then
  echo "device-auto.sh: run it from the repository root" >&2
  exit 2
fi
# shellcheck source=bench/device-lib.sh disable=SC1091
. bench/device-lib.sh
OUT=${OUT:-$PWD/device-out}
BUDGET_S=${BUDGET_S:-270}
SET=${SET:-device,device-more}
CANDIDATES=${CANDIDATES:-bench/auto/candidates-device.txt}
REPS=${REPS:-9}
SAMPLE_MS=${SAMPLE_MS:-1}
JOBS=${JOBS:-12}
PLAN_JOBS=${PLAN_JOBS:-12}
only=()
for name in ${ONLY:-}; do only+=(--only "$name"); done
dev_begin auto # log(), ../shared, $OUT, the GPU listed
dev_gpu_info   # $OUT/nvidia-smi.txt, DEVICE
PLAN_DEVICE=${PLAN_DEVICE:-$DEVICE} # the model's constants for this card (plan --device)

targets=(tools/zsparse/zsparse bench/auto/zs-bench-auto bench/gpu/zs-bench-gpu)
if [ -n "${MODULE_DIR:-}" ]; then
  [ -f "$MODULE_DIR/libzsparse-cuda.so" ] || {
    echo "device-auto.sh: MODULE_DIR=$MODULE_DIR holds no libzsparse-cuda.so" >&2
    exit 2
  }
  ZS_MODULE_DIR=$(cd "$MODULE_DIR" && pwd)
  export ZS_MODULE_DIR
else
  targets+=(backends/cuda/libzsparse-cuda.so)
fi
log "build: ${targets[*]}"
if ! {
  { [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release; } &&
    ninja -C build-gpu "${targets[@]}"
} >"$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"
  exit 1
fi
log "build done"

build-gpu/tools/zsparse/zsparse devices >"$OUT/devices.txt" 2>&1 || true
if ! build-gpu/bench/auto/zs-bench-auto --backend cuda --candidate csr --ops N --reps 1 \
  gen:stencil2d:n=64 >/dev/null 2>"$OUT/cuda-check.log"; then
  echo "device-auto.sh: the cuda backend is not usable here (devices.txt, cuda-check.log)" >&2
  cat "$OUT/devices.txt" "$OUT/cuda-check.log" >&2
  exit 1
fi

left=$((BUDGET_S - (SECONDS - DEV_START)))
log "auto_bench.py --set $SET on cuda, cases started for ${left}s"
set +e
python3 bench/auto/auto_bench.py --set "$SET" --backend cuda --build build-gpu --out "$OUT" --device "$DEVICE" \
  --vendor build-gpu/bench/gpu/zs-bench-gpu --reps "$REPS" --budget-s "$left" --case-timeout-s 120 \
  --candidates "$CANDIDATES" --sample-ms "$SAMPLE_MS" --jobs "$JOBS" --plan-jobs "$PLAN_JOBS" "${only[@]}" \
  ${PLAN_DEVICE:+--plan-device "$PLAN_DEVICE"} \
  2>&1 | tee "$OUT/auto.log"
rc=${PIPESTATUS[0]}
set -e
log "auto_bench.py exit $rc"
if [ -n "${PLAN_TIME:-}" ]; then # the model's choice time for 10^8 nonzeros on one idle core
  log "plan time: $PLAN_TIME"
  python3 bench/auto/auto_bench.py --plan-time "$PLAN_TIME" --build build-gpu --out "$OUT" --device "$DEVICE" \
    --backend cuda --plan-device "$PLAN_DEVICE" || rc=1
fi
[ -f "$OUT/$DEVICE-auto.csv" ] && python3 bench/make_guide.py --auto-summary "$OUT/$DEVICE-auto.csv"
exit "$rc"
