#!/usr/bin/env bash
# A/B of the cpu backend's CSR-dtANS kernels between two builds (seventeenth session): the same
# .zsm blobs, `zsparse spmv --backend cpu --repeat 20` (median ms), builds alternating, ROUNDS
# rounds. Usage, from the repo root: ab.sh BUILD_A BUILD_B [ROUNDS]; blobs in /tmp, made with
# `zsparse gen SPEC -f dtans -o FILE` for the specs below.
set -euo pipefail
a=$1 b=$2 rounds=${3:-3}
export OMP_PROC_BIND=close OMP_PLACES=cores
# shellcheck disable=SC2054 # the commas belong to the generator specs
declare -A spec=(
  [l2]=stencil2d:n=2048,points=5
  [l2r]=stencil2d:n=2048,points=5,values=random,seed=42
  [er]=erdos_renyi:rows=1048576,per_row=16,values=set,distinct=64,seed=42
  [rmat]=rmat:scale=20,per_row=16,values=set,distinct=64,seed=42
  [st27]=stencil3d:n=96,points=27,values=set,distinct=64,seed=42)
for m in l2 l2r er rmat st27; do
  f=/tmp/ab-$m.zsm
  [ -f "$f" ] || "$b/tools/zsparse/zsparse" gen "${spec[$m]}" -f dtans -o "$f" >/dev/null
  for op in N T; do
    echo "== $m op $op"
    for _ in $(seq "$rounds"); do # the builds alternate, round after round
      for build in "$a" "$b"; do
        printf '%s %s\n' "$build" "$("$build/tools/zsparse/zsparse" spmv "$f" --backend cpu \
          --op "$op" --repeat 20 2>&1 | awk '/^time:/ {print $3}')"
      done
    done | awk '{v[$1] = v[$1] " " $2} END {for (k in v) print k ":" v[k]}'
  done
done
