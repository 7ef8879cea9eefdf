#!/usr/bin/env bash
# encode-rate.sh — CSR-dtANS encoding speed on ONE core: the default (templates=auto) and
# versions 2-4 alone (templates=off) on the generated suite, random and 64-valued, f64 and f32.
#
#   bash bench/encode-rate.sh [CSV]       (from the repository root, after building build-host)
#
# BUILD (default build-host), CORE (default 1: the core taskset pins to; empty: not pinned),
# RUNS (encodes per case, default 3; the median is reported), ONLY (a substring: run only the
# specs holding it), FORMATS (default "dtans dtans:templates=off"). One CSV row per case on
# stdout (and into CSV when given): matrix,type,options,median_s,mnnz_per_s,first_s,cpu_s,
# mnnz_per_cpu_s (the median CPU time: what the encode cost the core, whoever else ran on it),
# bytes_per_nnz,version, then a comment with the load average before and after: the rate of a
# shared machine's core is only as good as the load beside it.
set -euo pipefail

BUILD=${BUILD:-build-host}
CORE=${CORE-1}
RUNS=${RUNS:-3}
ONLY=${ONLY:-}
read -r -a formats <<<"${FORMATS:-dtans dtans:templates=off}"
bin=$BUILD/bench/zs-bench-cpu
[ -x "$bin" ] || { echo "encode-rate.sh: no $bin (build it first)" >&2; exit 2; }
pin=()
[ -n "$CORE" ] && pin=(taskset -c "$CORE")

specs=(
  "stencil2d:n=2048,points=5" "stencil3d:n=96,points=27" "stencil3d:n=96,points=7"
  "erdos_renyi:rows=1048576,per_row=16" "rmat:scale=20,per_row=16"
  "banded:rows=2097152,width=128,per_row=20"
)
args=()
for f in "${formats[@]}"; do args+=(--format "$f"); done

out=${1:-/dev/null}
header="matrix,type,options,median_s,mnnz_per_s,first_s,cpu_s,mnnz_per_cpu_s,bytes_per_nnz,version"
echo "$header" | tee "$out"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for base in "${specs[@]}"; do
  for values in ",values=random" ",values=set,distinct=64"; do
    spec="$base$values,seed=42"
    [ -n "$ONLY" ] && [[ "$spec" != *"$ONLY"* ]] && continue
    name="${base%%:*}"
    case "$base" in *points=7*) name=stencil3d-7 ;; esac
    [[ "$values" == *set* ]] && name="$name-set"
    # "encode F T: median of N S s, R M nonzeros/s (fastest ...; first S s, R; B B/nnz, version V)"
    ZS_NUM_THREADS=1 OMP_NUM_THREADS=1 "${pin[@]}" "$bin" --encode-only --encode-runs "$RUNS" \
      --matrix "$spec" "${args[@]}" |
      awk -v m="$name" '/^encode / {
        f = $2; opt = (f ~ /:/) ? substr(f, index(f, ":") + 1) : "default"; t = $3; sub(":", "", t)
        med = $7; rate = $9
        first = $0; sub(/.*first /, "", first); split(first, a, " ")
        cpu = $0; sub(/.*cpu /, "", cpu); split(cpu, c, "[ ,;]+")
        bpn = $0; sub(/ B\/nnz.*/, "", bpn); sub(/.* /, "", bpn)
        v = "-"; if ($0 ~ /version/) { v = $0; sub(/.*version /, "", v); sub(/\).*/, "", v) }
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", m, t, opt, med, rate, a[1], c[1], c[3], bpn, v
      }' | tee -a "$out"
  done
done
echo "# load average before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
