#!/usr/bin/env bash
# Device run 4 of 2026-11-27 (dtANS): probe for column slabs stored apart. Erdős–Rényi 4M x 4M
# with 16 per row, against matrices shaped like one of its K column slabs (4M x 4M/K, 16/K per
# row: each of the K passes of a split stream would decode one of these). Module .ab/base (HEAD).
set -uo pipefail
start=$SECONDS
log() { printf '[r4 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
export ZS_MODULE_DIR=.ab/base
B=/tmp/blobs; mkdir -p $B
dt() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type $3 -f dtans -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
S=values=set,distinct=64,seed=42; R=values=random,seed=42
for v in S R; do
  eval vals=\$$v
  dt er1_$v erdos_renyi:rows=4194304,per_row=16,$vals f64 &
  dt er2_$v erdos_renyi:rows=4194304,cols=2097152,per_row=8,$vals f64 &
  dt er4_$v erdos_renyi:rows=4194304,cols=1048576,per_row=4,$vals f64 &
  wait
done
dt er1_Sf erdos_renyi:rows=4194304,per_row=16,$S f32 &
dt er2_Sf erdos_renyi:rows=4194304,cols=2097152,per_row=8,$S f32 &
wait
log "blobs done"
for f in er1_S er2_S er4_S er1_R er2_R er4_R er1_Sf er2_Sf; do
  sz=$(stat -c %s $B/$f.zsm)
  for round in 1 2; do
    t=$($Z spmv $B/$f.zsm --backend cuda --repeat 20 | grep -o "median [0-9.]* ms")
    echo "$f bytes $sz round $round N $t"
  done
  t=$($Z spmv $B/$f.zsm --backend cuda --repeat 20 --op-options col_slabs=1 | grep -o "median [0-9.]* ms")
  echo "$f col_slabs=1 N $t"
done | tee $OUT/probe.txt
$Z spmv $B/er2_S.zsm --backend cuda --repeat 3 --check | tail -1
log done
