#!/usr/bin/env bash
# Paired test in one process (fourth set): hp_ab.c holds the 2-D stencil twice, in 4 KiB and in
# 2 MiB pages, and times a CSR SpMV on each copy in turn. Usage: paired.sh OUT_FILE [RUNS]
set -euo pipefail
here=$(dirname "$0")
gcc -O2 -fopenmp "$here/hp_ab.c" -o /tmp/hp_ab
export OMP_PROC_BIND=close OMP_PLACES=cores
for i in $(seq "${2:-3}"); do
  echo "run $i"
  /tmp/hp_ab 2048 200
done | tee "$1"
