#!/usr/bin/env bash
# The cpu kernels with and without huge pages for large arrays: zs-bench-cpu's default matrix (2-D
# 5-point stencil 2048^2) with csr and dtans, alternating a build whose zsi_alloc never asks for
# huge pages (NOHUGE_DIR: its libzsparse.so.0, HUGE_MIN set to UINT64_MAX) with build-host, two
# rounds. Usage: run.sh NOHUGE_DIR
set -euo pipefail
out=$(dirname "$0")
export OMP_PROC_BIND=close OMP_PLACES=cores
for round in 1 2; do
  LD_LIBRARY_PATH=$1 build-host/bench/zs-bench-cpu --runs 10 --warmup 2 --format csr \
    --format dtans >"$out/nohuge-$round.md" 2>&1
  build-host/bench/zs-bench-cpu --runs 10 --warmup 2 --format csr --format dtans \
    >"$out/huge-$round.md" 2>&1
done
