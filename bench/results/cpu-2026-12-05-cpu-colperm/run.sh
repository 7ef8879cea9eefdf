#!/usr/bin/env bash
# The cpu backend's version-4 SpMVT and pair: y/z copied through col_perm before and after (OLD,
# a build of the tree before) against the sums landing at the matrix's columns (NEW, build-host).
# R-MAT scale 20 with 64 values (col_order=auto renumbers it), f64 and f32, two rounds each,
# alternating. Usage: run.sh OLD_BENCH NEW_BENCH
set -euo pipefail
out=$(dirname "$0")
export OMP_PROC_BIND=close OMP_PLACES=cores
for round in 1 2; do
  for which in old new; do
    bench=$1
    [ "$which" = new ] && bench=$2
    "$bench" --matrix rmat:scale=20,per_row=16,values=set,distinct=64,seed=42 --runs 10 \
      --warmup 1 --probe-mib 64 --format dtans >"$out/$which-$round.md" 2>&1
    grep -E "^\| zsparse cpu dtans" "$out/$which-$round.md" | sed "s|^|$which-$round |"
  done
done
