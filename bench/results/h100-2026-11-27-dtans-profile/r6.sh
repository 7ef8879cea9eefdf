#!/usr/bin/env bash
# Device run 6 of 2026-11-27 (dtANS): one slab against the two the rule picks, per value mode
# and operation, on Erdős–Rényi 4M x 4M with 16 per row in f64 (data for a per-operation slab
# count; no code change). Module .ab/base = HEAD 774f13e's kernels.
set -uo pipefail
start=$SECONDS
log() { printf '[r6 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
dt() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type f64 -f dtans -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
dt er_set erdos_renyi:rows=4194304,per_row=16,values=set,distinct=64,seed=42 &
dt er_pat erdos_renyi:rows=4194304,per_row=16,values=pattern,seed=42 &
wait
log "blobs done"
C=()
for f in er_set er_pat; do
  for o in "" ":col_slabs=1"; do C+=($B/$f.zsm:N$o); done
  for o in ":transpose=atomic" ":transpose=atomic,col_slabs=1"; do C+=($B/$f.zsm:T$o); done
done
bash bench/ab-modules.sh -r 2 -n 20 .ab/base -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"
cat $OUT/ab.txt
log done
