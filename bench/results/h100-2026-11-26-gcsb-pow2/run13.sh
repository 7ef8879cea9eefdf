#!/usr/bin/env bash
# Device run 13: power-of-two split counts (+ csb_auto_splits refactor); A/B against HEAD's module,
# beta 32 for the f64 layers; build, csb/gpu/conformance tests, layer bench with cuSPARSE.
set -uo pipefail
start=$SECONDS
log() { printf '[run13 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi -L
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
gen() { [ -f "$B/$1.zsm" ] || $Z gen "$2" --type "$3" -f gcsb ${4:+--options $4} -o "$B/$1.zsm" >/dev/null || echo "gen $1 failed"; }
R=values=random,seed=42
gen l1d erdos_renyi:rows=16384,p=0.01,$R f64 &
gen l1d32 erdos_renyi:rows=16384,p=0.01,$R f64 beta=32 &
gen l5d erdos_renyi:rows=16384,p=0.05,$R f64 &
gen l5d32 erdos_renyi:rows=16384,p=0.05,$R f64 beta=32 &
gen s5d erdos_renyi:rows=8192,p=0.05,$R f64 &
gen s5f erdos_renyi:rows=8192,p=0.05,$R f32 &
gen l1f erdos_renyi:rows=16384,p=0.01,$R f32 &
wait
log "blobs done"
C=()
for f in l1d l1d32 l5d l5d32 s5d s5f l1f; do C+=($B/$f.zsm:N $B/$f.zsm:T); done
bash bench/ab-modules.sh -r 2 -n 50 .ab/split .ab/pow2r -- "${C[@]}" > $OUT/ab.txt 2>&1
log "A/B done"
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-gpu >/dev/null 2>&1 || { echo gpu build failed; exit 1; }
log "build done"
meson test -C build-gpu --suite csb --suite gpu --suite conformance > $OUT/tests.txt 2>&1
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/layers.csv --md $OUT/layers.md --no-cold --reps 20 --format gcsb gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/layers.log 2>$OUT/layers.err
echo "bench rc $?"
log "done"
tail -40 $OUT/ab.txt
