#!/usr/bin/env bash
# Device run 3 of 2026-11-27 (dtANS): coded f64 values as two 32-bit halves (the committed
# change). Module A/B .ab/base (HEAD 774f13e) against .ab/F (this tree), built on the dev machine;
# full CUDA build here for the dtans, gpu and conformance suites and the bench with cuSPARSE.
set -uo pipefail
start=$SECONDS
log() { printf '[r3 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?") &
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
S=values=set,distinct=64,seed=42
dt() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type $3 -f dtans -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
dt er_set erdos_renyi:rows=4194304,per_row=16,$S f64 &
dt rmat_set rmat:scale=22,per_row=16,$S f64 &
dt st27_set stencil3d:n=160,points=27,$S f64 &
dt er_set_f erdos_renyi:rows=4194304,per_row=16,$S f32 &
wait
log "blobs and gpu build done"
C=()
for f in er_set rmat_set st27_set er_set_f; do C+=($B/$f.zsm:N); done
C+=($B/er_set.zsm:T)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/base .ab/F -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"
grep -v "^ok" $OUT/ab.txt | tail -12
log "A/B done"
meson test -C build-gpu --suite dtans --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/coded.csv --md $OUT/coded.md --no-cold --reps 10 --types f64 --format dtans gen:erdos_renyi:rows=4194304,per_row=16,$S gen:rmat:scale=22,per_row=16,$S > $OUT/coded.log 2>&1
echo "bench rc $?"
grep -E "dtans|sell32|csr-alg1|coo-alg1" $OUT/coded.md | grep -E "\| N \||N" | head -20
log done
