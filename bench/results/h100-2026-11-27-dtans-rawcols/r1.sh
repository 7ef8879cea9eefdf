#!/usr/bin/env bash
# Device run 1 of 2026-11-27 (later): dtANS raw columns (joint values beside plain columns).
# Module A/B .ab/head (HEAD 67381c7) against .ab/new (this tree), both built on the dev machine
# for sm_90: the delta-coded blobs on both (no regression), the raw-column blobs on the new one
# (HEAD cannot read them); every product checked first. Then the CUDA build here, the dtans, gpu
# and conformance suites, and the bench with cuSPARSE beside.
set -uo pipefail
start=$SECONDS
log() { printf '[r1 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?" >> $OUT/gpu-build.log) &
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
S=values=set,distinct=64,seed=42
dt() { $Z gen "$2" --type $3 -f dtans --options "$4" -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
ER=erdos_renyi:rows=4194304,per_row=16,$S
RM=rmat:scale=22,per_row=16,$S
dt er_d "$ER" f64 columns=deltas &
dt er_r "$ER" f64 columns=raw &
dt er_a "$ER" f64 columns=auto &
dt rm_d "$RM" f64 columns=deltas &
dt rm_r "$RM" f64 columns=raw &
dt rm_a "$RM" f64 columns=auto &
wait
dt er_df "$ER" f32 columns=deltas &
dt er_rf "$ER" f32 columns=raw &
dt rm_df "$RM" f32 columns=deltas &
dt rm_rf "$RM" f32 columns=raw &
dt st27 stencil3d:n=160,points=27,$S f64 values=auto &
wait
for f in er_d er_r er_a rm_d rm_r rm_a er_rf rm_rf; do
  printf '%s: ' $f; $Z info $B/$f.zsm --json | python3 -c "import json,sys; d=json.load(sys.stdin); s=d.get('stats',d); print({k: s.get(k) for k in ('value_mode','column_mode','actual_bytes','stream_bytes','escape_bytes','raw_column_bytes')})"
done | tee $OUT/sizes.txt
log "blobs done"
C=()
for f in er_d rm_d st27 er_df rm_df; do C+=($B/$f.zsm:N); done
C+=($B/er_d.zsm:T:transpose=atomic)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/head .ab/new -- "${C[@]}" > $OUT/ab-deltas.txt 2>&1
echo "ab deltas rc $?"; grep -v "^ok" $OUT/ab-deltas.txt | tail -14
R=()
for f in er_r rm_r er_rf rm_rf; do R+=($B/$f.zsm:N); done
R+=($B/er_r.zsm:N:col_slabs=1 $B/er_r.zsm:N:col_slabs=2 $B/rm_r.zsm:N:col_slabs=1 $B/rm_r.zsm:N:col_slabs=2)
R+=($B/er_r.zsm:T:transpose=atomic $B/rm_r.zsm:T:transpose=atomic $B/er_r.zsm:T)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/new -- "${R[@]}" > $OUT/ab-raw.txt 2>&1
echo "ab raw rc $?"; grep -v "^ok" $OUT/ab-raw.txt | tail -20
log "A/B done"
wait
tail -1 $OUT/gpu-build.log
log "gpu build done"
meson test -C build-gpu --suite dtans --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/bench.csv --md $OUT/bench.md --no-cold --reps 10 --format dtans gen:$ER gen:$RM > $OUT/bench.log 2>&1
echo "bench rc $?"
grep -E "dtans|sell32|csr-alg1|csr-alg2|coo" $OUT/bench.md | grep -E "\| N \|" | head -30
log done
