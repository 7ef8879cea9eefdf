#!/usr/bin/env bash
# Encoding speed of dtANS on this 2-core machine (issue 4's >= 10 M nonzeros/s per core): the five
# matrices of bench/NOTES.md's "Encoding speed" table, few-valued (64 values) and random, f64 and
# f32, default encoder options, each encoded 5 times (median, fastest, first). Run from the repo
# root after `ninja -C build-host`: run.sh rN writes one file per matrix into rN/ beside this
# script (r1: before the delta counts in plain arrays, r2: after).
set -euo pipefail
out=$(dirname "$0")/$1
mkdir -p "$out"
export OMP_PROC_BIND=close OMP_PLACES=cores
for m in stencil2d:n=2048,points=5 stencil3d:n=96,points=27 \
  erdos_renyi:rows=1048576,per_row=16 rmat:scale=20,per_row=16 \
  banded:rows=2097152,width=128,per_row=20; do
  for v in ",values=set,distinct=64" ""; do
    name=$(echo "${m%%:*}${v:+-set}" | tr -d ',=')
    build-host/bench/zs-bench-cpu --matrix "$m$v,seed=42" --runs 10 --warmup 1 --probe-mib 64 \
      --encode-runs 5 --format dtans >"$out/$name.md" 2>&1
    grep "^encode" "$out/$name.md" | sed "s|^|$name: |"
  done
done
