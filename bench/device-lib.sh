# shellcheck shell=bash
# device-lib.sh — steps that device-run scripts share (a run script written for one question on the
# GPU machine, and bench/ab-modules.sh). Source it from the repository root on the GPU machine,
# with OUT set, then call:
#
#   dev_begin NAME       log() prints "[NAME  SECONDSs] ..."; ../shared is linked when missing
#                        (only shared/ inside the checkout travels: a warning when it holds no
#                        matrices); $OUT is made; the GPU listed
#   dev_gpu_info         writes the GPU's name, driver, memory, clocks, temperature and power
#                        to $OUT/nvidia-smi.txt and sets DEVICE to h100, h200 or gpu from the
#                        first GPU's name (result files are named by it: the two never mix)
#   dev_module_dir SCRIPT
#                        exports ZS_MODULE_DIR as the absolute path of $MODULE_DIR, a folder
#                        holding libzsparse-cuda.so built on the development machine; exits 2
#                        naming SCRIPT when it holds none
#   dev_append_csv PART NAME CSV
#                        appends PART's rows (a zs-bench-gpu CSV) to CSV with NAME in place of
#                        the first column (PART's header first when CSV is new), removes PART
#   dev_build_bg         configures build-gpu (cuda on, hip off, release) and builds every target
#                        but the GPU modules, in the background ($OUT/gpu-build.log): the modules
#                        come from folders built on the development machine (ZS_MODULE_DIR)
#   dev_build_wait       waits for dev_build_bg and prints its last line
#   dev_targets_but_modules BUILD
#                        prints the configured BUILD's executables and custom targets, one a line,
#                        but the GPU modules (backends/) and meson's own (also bench/device-run.sh)
#   dev_host_tool        sets Z to the zsparse tool of build-host, built without GPU modules
#                        (seconds) when missing; bench/ab-modules.sh uses it too
#   dev_gen FORMAT[:OPTIONS] NAME TYPE SPEC [NAME TYPE SPEC ...]
#                        writes $B/NAME.zsm (B=/tmp/blobs) for each generator SPEC in FORMAT and
#                        TYPE, all at once; OPTIONS are the encoder's (zsparse gen --options), as
#                        in zs-bench-gpu's --format, e.g. dtans:lane_symbols=256,guided=4096.
#                        Blobs of several encoder settings: one dev_gen per setting, each with &,
#                        then wait
#   dev_conformance SECONDS FORMAT...
#                        the conformance suite on cuda against ref for each FORMAT (--format),
#                        at most SECONDS, to $OUT/conformance.txt; prints its FAIL lines and
#                        sets DEV_CONF to ok or FAILED (not a gate: each timed kernel is
#                        checked again by zs-bench-gpu)
#   dev_tests DIR [SECONDS]
#                        the whole meson suite in build-gpu with the cuda module from DIR
#                        (default timeout 200 s), $OUT/tests.txt, summary printed
#   dev_bench_case NAME TYPES SPEC FORMAT...
#                        one zs-bench-gpu process on SPEC (warm medians of $REPS calls, default 20,
#                        the zsparse formats FORMAT as --format, cuSPARSE beside) while
#                        $BUDGET_S seconds of the script are not spent; its rows appended to $CSV
#                        with NAME as the matrix, its output in $OUT/bench-NAME.log; a failure
#                        sets DEV_STATUS=1
#   dev_print_csv CSV    every kernel's warm median of CSV: case, type, kernel, op, us, status
#   dev_build_and_test DIR [SECONDS]
#                        dev_build_bg, dev_build_wait, dev_tests DIR SECONDS, then exports
#                        ZS_MODULE_DIR=DIR for the benches that follow
#
# Module A/B runs go through bench/ab-modules.sh; whole builds, tests and benches through
# bench/device-run.sh.

dev_begin() {
  DEV_NAME=$1
  DEV_START=$SECONDS
  [ -e ../shared ] || ln -s "$PWD/shared" ../shared
  # without them the suite's shared-matrix tests fail (six of them), not the code under test
  [ -d ../shared/matrices ] ||
    echo "warning: no ../shared/matrices here: copy ../shared/matrices into shared/ (git-ignored) before the call" >&2
  mkdir -p "$OUT"
  nvidia-smi -L
}

log() { printf '[%s %4ds] %s\n' "$DEV_NAME" $((SECONDS - DEV_START)) "$*"; }

dev_gpu_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$OUT/nvidia-smi.txt" 2>&1 || true
  # shellcheck disable=SC2034 # DEVICE is read by the scripts that source this file
  case $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1) in
    *H100*) DEVICE=h100 ;;
    *H200*) DEVICE=h200 ;;
    *) DEVICE=gpu ;;
  esac
}

dev_module_dir() {
  [ -f "${MODULE_DIR:-}/libzsparse-cuda.so" ] || {
    echo "$1: MODULE_DIR=${MODULE_DIR:-} holds no libzsparse-cuda.so" >&2
    exit 2
  }
  ZS_MODULE_DIR=$(cd "$MODULE_DIR" && pwd)
  export ZS_MODULE_DIR
}

# A CSV reader, not cut: generator specs and kernel options are quoted fields with commas.
dev_append_csv() {
  [ -f "$3" ] || head -n 1 "$1" >"$3"
  python3 -c 'import csv, sys
rows = csv.reader(open(sys.argv[1], newline=""))
next(rows)
out = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    out.writerow([sys.argv[2]] + r[1:])' "$1" "$2" >>"$3"
  rm -f "$1"
}

dev_targets_but_modules() {
  ninja -C "$1" -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 |
    grep -vE '^(backends/|meson-internal)'
}

dev_build_bg() {
  (
    meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >"$OUT/gpu-build.log" 2>&1
    targets=$(dev_targets_but_modules build-gpu)
    # shellcheck disable=SC2086 # one target per word
    ninja -C build-gpu $targets >>"$OUT/gpu-build.log" 2>&1
    echo "build (no module) rc $?" >>"$OUT/gpu-build.log"
  ) &
  DEV_BUILD=$!
}

dev_build_wait() {
  wait "$DEV_BUILD"
  tail -1 "$OUT/gpu-build.log"
}

dev_host_tool() {
  Z=build-host/tools/zsparse/zsparse
  [ -x "$Z" ] && return 0
  { meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release &&
    ninja -C build-host tools/zsparse/zsparse; } >build-host.log 2>&1 || {
    echo "building $Z failed (build-host.log):" >&2
    tail -n 20 build-host.log >&2
    exit 1
  }
}

dev_gen() {
  local format=${1%%:*} options='' pids=()
  [ "$format" = "$1" ] || options=${1#*:}
  shift
  B=/tmp/blobs
  mkdir -p "$B"
  while [ $# -ge 3 ]; do
    "$Z" gen "$3" --type "$2" -f "$format" ${options:+--options "$options"} -o "$B/$1.zsm" >/dev/null &
    pids+=($!)
    shift 3
  done
  wait "${pids[@]}"
}

# shellcheck disable=SC2034 # DEV_CONF is the calling script's
dev_conformance() {
  local seconds=$1 fmt_args=()
  shift
  for f in "$@"; do fmt_args+=(--format "$f"); done
  DEV_CONF=ok
  OMP_WAIT_POLICY=passive timeout "$seconds" build-gpu/tests/conformance/conformance --require cuda \
    --random-only "${fmt_args[@]}" >"$OUT/conformance.txt" 2>&1 || DEV_CONF=FAILED
  grep -E '^(FAIL|not ok)' "$OUT/conformance.txt" | head -n 30 || true
  log "conformance $DEV_CONF: $(tail -n 1 "$OUT/conformance.txt")"
}

dev_tests() {
  ZS_MODULE_DIR=$PWD/$1 timeout "${2:-200}" meson test -C build-gpu --no-rebuild --num-processes 8 \
    >"$OUT/tests.txt" 2>&1
  echo "tests rc $?"
  grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' "$OUT/tests.txt"
}

dev_build_and_test() {
  dev_build_bg
  dev_build_wait
  dev_tests "$1" "${2:-200}"
  export ZS_MODULE_DIR=$PWD/$1
  log "tests done"
}

# shellcheck disable=SC2034 # DEV_STATUS is the calling script's
dev_bench_case() {
  local name=$1 types=$2 spec=$3
  shift 3
  local left=$((BUDGET_S - (SECONDS - DEV_START))) fmt_args=()
  if [ "$left" -lt 10 ]; then
    log "$name skipped: budget spent"
    return
  fi
  for f in "$@"; do fmt_args+=(--format "$f"); done
  log "$name ($spec, $types), ${left}s left"
  timeout "$left" build-gpu/bench/gpu/zs-bench-gpu --types "$types" --reps "${REPS:-20}" \
    --warmup 3 --no-cold "${fmt_args[@]}" --csv "$OUT/part.csv" "$spec" \
    >"$OUT/bench-$name.log" 2>&1 || DEV_STATUS=1 # read by the calling script
  [ -f "$OUT/part.csv" ] || return 0
  dev_append_csv "$OUT/part.csv" "$name" "$CSV" # the case name for the spec
}

dev_print_csv() {
  python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print("%-9s %-4s %-58s %-2s %9s %s" % (r["matrix"], r["type"], r["kernel"], r["op"],
                                          r["time_warm_us"], r["status"]))' "$1" || true
}
