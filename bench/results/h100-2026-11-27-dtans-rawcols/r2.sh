#!/usr/bin/env bash
# Device run 2 (same warm machine as r1, whose blobs in /tmp/blobs and build-gpu it reuses):
# the dtans, gpu and conformance suites on the CUDA build of this tree; raw-column blobs in one
# and two column slabs; the bench with cuSPARSE beside on Erdős–Rényi (auto: raw columns).
set -uo pipefail
start=$SECONDS
log() { printf '[r2 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
ninja -C build-gpu > $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
meson test -C build-gpu --suite dtans --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
B=/tmp/blobs
R=()
for f in er_r er_rf; do R+=($B/$f.zsm:N:col_slabs=1 $B/$f.zsm:N:col_slabs=2); done
R+=($B/er_r.zsm:T:transpose=atomic $B/er_r.zsm:T)
bash bench/ab-modules.sh -r 2 -n 20 .ab/new -- "${R[@]}" > $OUT/ab-slabs.txt 2>&1
grep -v "^ok" $OUT/ab-slabs.txt | tail -14
log "A/B done"
S=values=set,distinct=64,seed=42
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/bench.csv --md $OUT/bench.md --no-cold --reps 10 --format dtans gen:erdos_renyi:rows=4194304,per_row=16,$S > $OUT/bench.log 2>&1
echo "bench rc $?"
grep -E "\| N \|" $OUT/bench.md | head -30
log done
