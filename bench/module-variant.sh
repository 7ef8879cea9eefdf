#!/usr/bin/env bash
# module-variant.sh — build the CUDA module of this tree, or of this tree with a patch applied,
# into .ab/NAME for bench/ab-modules.sh on the GPU machine (carry .ab/NAME with the call). One
# nvcc compile for sm_90 only, in a scratch copy of the sources: the working tree is not touched.
#
#   bash bench/module-variant.sh NAME [PATCH] [-- NVCC_FLAGS...]
#
# NAME        the folder .ab/NAME gets libzsparse-cuda.so, the ptxas report (ptxas.txt) and the
#             registers of the deterministic GCSB kernels, one line each (regs.txt)
# PATCH       a diff against this tree: git's (a/ b/ paths) or `diff -u FILE NEW` run at the root;
#             none builds the tree as it is
# NVCC_FLAGS  e.g. -DZS_CSB_TEAM_PIECES=6 to override a kernel's compile-time constant
#
# Example: bash bench/module-variant.sh tp6 -- -DZS_CSB_TEAM_PIECES=6
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
name=$1
shift
patch_file=
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  patch_file=$(realpath "$1")
  shift
fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
root=$(git rev-parse --show-toplevel)
out=$root/.ab/$name
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$root/backends" "$root/include" "$root/formats" "$root/core" "$scratch/"
if [ -n "$patch_file" ]; then
  # a `diff -u FILE /tmp/NEW` names its new side outside the tree: take the old side's name
  awk '/^--- / { old = $2 } /^\+\+\+ \// { $0 = "+++ " old } { print }' "$patch_file" >"$scratch/variant.diff"
  strip=-p0
  if (cd "$scratch" && patch -p1 -s --dry-run <variant.diff >/dev/null 2>&1); then strip=-p1; fi
  (cd "$scratch" && patch "$strip" -s <variant.diff)
fi
mkdir -p "$out"
if ! (cd "$scratch" && nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC \
  -gencode arch=compute_90,code=sm_90 -Xptxas -v -I. -Iinclude "$@" \
  backends/cuda/cuda_*.cu -o "$out/libzsparse-cuda.so") >"$out/ptxas.txt" 2>&1; then
  tail -30 "$out/ptxas.txt"
  exit 1
fi
# "W<type, index, TRANS, SPLIT, TEAMS> registers" for each zs_csb_warp_kernel
awk '/Compiling entry function/ { f = $0 }
     /Used [0-9]+ registers/ && f ~ /zs_csb_warp_kernel/ {
       match(f, /_Z[A-Za-z0-9_]+/); r = $0; sub(/.* Used /, "", r); sub(/ registers.*/, "", r)
       print substr(f, RSTART, RLENGTH), r }' "$out/ptxas.txt" |
  while read -r mangled regs; do
    echo "$(c++filt "$mangled" | sed 's/.*zs_csb_warp_kernel/W/; s/(.*//') $regs"
  done | sort >"$out/regs.txt"
echo "$out/libzsparse-cuda.so ($(wc -l <"$out/regs.txt") warp-walk kernels in regs.txt)"
