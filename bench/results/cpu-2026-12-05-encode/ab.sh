#!/usr/bin/env bash
# A/B of two encoder builds, alternating, 3 rounds: best of 5 zs_encode calls
# (bench/results/cpu-2026-11-28-col-order/encode_timer.c,
# linked once against each build's libzsparse). Usage: ab.sh TIMER_A TIMER_B [SPEC...]
set -euo pipefail
export OMP_PROC_BIND=close OMP_PLACES=cores
a=$1 b=$2
shift 2
specs=("$@")
# shellcheck disable=SC2054 # the commas belong to the generator specs
[ ${#specs[@]} -gt 0 ] || specs=(stencil2d:n=2048,points=5,values=set,distinct=64,seed=42
  stencil3d:n=96,points=27,values=set,distinct=64,seed=42
  erdos_renyi:rows=1048576,per_row=16,seed=42 rmat:scale=20,per_row=16,seed=42
  rmat:scale=20,per_row=16,values=set,distinct=64,seed=42
  banded:rows=2097152,width=128,per_row=20,values=set,distinct=64,seed=42)
for s in "${specs[@]}"; do
  for round in 1 2 3; do
    printf '%s round %s A: %s\n' "$s" "$round" "$("$a" "$s" "" | awk '{print $2, $4}')"
    printf '%s round %s B: %s\n' "$s" "$round" "$("$b" "$s" "" | awk '{print $2, $4}')"
  done
done
