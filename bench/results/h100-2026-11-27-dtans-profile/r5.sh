#!/usr/bin/env bash
# Device run 5 of 2026-11-27 (dtANS): column parts. A GPU dtANS operator that chose K column
# slabs is now encoded again as K column parts by zs_operator_create (each pass decodes only its
# part). Module A/B with this tree's host build: .ab/base (HEAD 774f13e: no column-parts
# extension, so K slab passes) against .ab/P (this tree). Then the full CUDA build: the dtans,
# gpu and conformance suites, and the bench with cuSPARSE on Erdős–Rényi f64.
set -uo pipefail
start=$SECONDS
log() { printf '[r5 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?") > $OUT/gpu-build.rc &
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
S=values=set,distinct=64,seed=42; R=values=random,seed=42
dt() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type $3 -f dtans -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
dt er_set erdos_renyi:rows=4194304,per_row=16,$S f64 &
dt er_rnd erdos_renyi:rows=4194304,per_row=16,$R f64 &
wait
log "blobs done"
for m in base P; do
  for f in er_set er_rnd; do
    /usr/bin/time -f "$m $f create+run %e s" env ZS_MODULE_DIR=.ab/$m $Z spmv $B/$f.zsm --backend cuda --repeat 1 --check 2>&1 | grep -E "backend|check|create"
  done
done
C=($B/er_set.zsm:N $B/er_set.zsm:T:transpose=atomic $B/er_set.zsm:T $B/er_rnd.zsm:N $B/er_rnd.zsm:T:transpose=atomic $B/er_set.zsm:N:col_slabs=2 $B/er_set.zsm:N:col_slabs=1)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/P -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"
grep -v "^ok" $OUT/ab.txt | tail -14
log "A/B done"
wait
cat $OUT/gpu-build.rc
meson test -C build-gpu --suite dtans --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
grep -h "column part" build-gpu/meson-logs/testlog.txt | sort | uniq -c | head -20
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/er.csv --md $OUT/er.md --no-cold --reps 10 --types f64 --format dtans gen:erdos_renyi:rows=4194304,per_row=16,$S gen:erdos_renyi:rows=4194304,per_row=16,$R > $OUT/er.log 2>&1
echo "bench rc $?"
grep -E "dtans|sell32|csr-alg1" $OUT/er.log | head -24
log done
