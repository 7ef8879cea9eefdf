#!/usr/bin/env bash
# ab-modules.sh — time the same .zsm blobs or MAT-VANS files under several builds of a GPU
# backend module, on the GPU machine, without building the modules there: an A/B of kernel
# changes in one call.
#
#   bash bench/ab-modules.sh [-r ROUNDS] [-n REPEAT] [-b BACKEND] [-c] DIR... -- CASE...
#
# DIR     a folder holding libzsparse-BACKEND.so, e.g. one module per revision built on the
#         development machine (`ninja -C build backends/cuda/libzsparse-cuda.so` in a worktree of
#         each revision) and copied into an ignored folder that the device call carries
# CASE    FILE.zsm:OP[:OPERATOR_OPTIONS], OP N, T or pair (zs_spmv_pair), e.g.
#         /tmp/st27.zsm:T:experimental.det_walk=lanes, /tmp/lap.zsm:pair:transpose=atomic;
#         or FILE.vans[:VARIANT], a MAT-VANS chain (zsparse vans run) with ZS_EXPERIMENTAL_VANS_VARIANT
#         set to VARIANT when given (backends/cuda_hip/vans_gpu.cuh), e.g. /tmp/p16384.vans:24
# -r      rounds (default 2): each round runs every module once per case, in the order given,
#         so that a drift of the machine shows as a difference between rounds
# -n      timed products per run (zsparse spmv --repeat, default 20; the median is printed),
#         or timed chains (zsparse vans run --reps; the mean per layer is printed)
# -b      backend (default cuda)
# -c      first check every module on every case against the host: zsparse spmv --check, or a
#         chain's output hash against the cpu backend's; a failed check stops the script, a
#         passed one prints a line "ok CASE: DIR: ..." on stderr
#
# The zsparse tool is $ZSPARSE, else build-host/tools/zsparse/zsparse, built here with the GPU
# modules disabled when missing (seconds, against minutes for a build with nvcc): the modules
# come from the DIRs through ZS_MODULE_DIR. Prints one line per case and round:
#   CASE: DIR1 MEDIAN_US DIR2 MEDIAN_US ...   (for a chain, microseconds per layer)
set -uo pipefail

rounds=2 repeat=20 backend=cuda check=0
while getopts "r:n:b:ch" o; do
  case $o in
    r) rounds=$OPTARG ;;
    n) repeat=$OPTARG ;;
    b) backend=$OPTARG ;;
    c) check=1 ;;
    h) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift
cases=("$@")
if [ ${#dirs[@]} -eq 0 ] || [ ${#cases[@]} -eq 0 ]; then
  echo "usage: bash bench/ab-modules.sh [-r ROUNDS] [-n REPEAT] [-b BACKEND] [-c] DIR... -- CASE..." >&2
  exit 2
fi
for d in "${dirs[@]}"; do
  if [ ! -f "$d/libzsparse-$backend.so" ]; then
    echo "ab-modules.sh: $d holds no libzsparse-$backend.so" >&2
    exit 2
  fi
done

if [ -n "${ZSPARSE:-}" ]; then
  Z=$ZSPARSE
else
  # shellcheck source=bench/device-lib.sh
  . "$(dirname "${BASH_SOURCE[0]}")/device-lib.sh"
  dev_host_tool
fi

# run DIR FILE OP OPTIONS EXTRA...: zsparse spmv with DIR's module; prints its JSON
run() {
  local dir=$1 file=$2 op=$3 opts=$4
  shift 4
  ZS_MODULE_DIR=$dir "$Z" spmv "$file" --backend "$backend" --op "$op" \
    ${opts:+--op-options "$opts"} --json "$@"
}

# run_vans DIR FILE VARIANT EXTRA...: zsparse vans run with DIR's module; prints its JSON
run_vans() {
  local dir=$1 file=$2 variant=$3
  shift 3
  ZS_MODULE_DIR=$dir ZS_EXPERIMENTAL_VANS_VARIANT=${variant:-0} "$Z" vans run "$file" --backend "$backend" \
    --json "$@"
}

# field JSON KEY SCALE [FORMAT]: the number KEY of a JSON object times SCALE, printed with FORMAT
# (default %.1f: one decimal)
field() {
  python3 -c 'import json, sys; print(sys.argv[4] % (json.loads(sys.argv[1])[sys.argv[2]] * float(sys.argv[3])))' \
    "$1" "$2" "$3" "${4:-%.1f}" 2>/dev/null
}

status=0
for c in "${cases[@]}"; do
  IFS=: read -r file op opts <<<"$c"
  vans=0
  case $file in *.vans) vans=1 ;; esac
  if [ ! -f "$file" ] || { [ $vans = 0 ] && [ "$op" != N ] && [ "$op" != T ] && [ "$op" != pair ]; } ||
    { [ $vans = 1 ] && [[ ! "$op" =~ ^[0-9]*$ ]]; }; then
    echo "ab-modules.sh: case '$c': want FILE.zsm:N|T|pair[:OPTIONS] or FILE.vans[:VARIANT] with an existing file" >&2
    exit 2
  fi
  if [ $check = 1 ] && [ $vans = 1 ]; then
    want=$(field "$("$Z" vans run "$file" --backend cpu --reps 1 --json 2>&1)" hash 1)
    for d in "${dirs[@]}"; do
      got=$(field "$(run_vans "$d" "$file" "$op" --reps 1 2>&1)" hash 1)
      if [ -z "$want" ] || [ "$got" != "$want" ]; then
        echo "$c: $d: CHECK FAILED: output hash ${got:-none}, cpu ${want:-none}" >&2
        exit 1
      fi
      echo "ok $c: $d: output hash equals the cpu backend's" >&2
    done
  elif [ $check = 1 ]; then
    for d in "${dirs[@]}"; do
      if ! out=$(run "$d" "$file" "$op" "$opts" --repeat 1 --check 2>&1); then
        echo "$c: $d: CHECK FAILED: $out" >&2
        exit 1
      fi
      echo "ok $c: $d: max_rel_err $(field "$out" max_rel_err 1 %.3g) <= tolerance $(field "$out" tolerance 1 %.3g)" >&2
    done
  fi
  for ((k = 1; k <= rounds; k++)); do
    line="$c:"
    for d in "${dirs[@]}"; do
      if [ $vans = 1 ]; then
        out=$(run_vans "$d" "$file" "$op" --reps "$repeat" 2>&1)
        t=$(field "$out" ms_per_layer 1e3)
      else
        out=$(run "$d" "$file" "$op" "$opts" --repeat "$repeat" 2>&1)
        t=$(field "$out" time_median_s 1e6)
      fi
      if [ -z "$t" ]; then
        echo "$c: $d: $(tail -n 1 <<<"$out")" >&2
        t=error status=1
      fi
      line="$line $d $t"
    done
    echo "$line"
  done
done
exit $status
