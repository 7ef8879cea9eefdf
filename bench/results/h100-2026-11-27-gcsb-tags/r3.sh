#!/usr/bin/env bash
# Device run 3: SpMVT's block search as a binary search of the team's ends (log2 L dependent
# shuffles) instead of a ballot and an OR per piece, for teams of at most 8 lanes (.ab/BS8) or 16
# (.ab/BS16), against .ab/c1 (HEAD 206fe21); nvcc sm_90 on the development machine. Then the
# whole suite against .ab/BS16 (both searches run there), the pruned layers' bench with .ab/c1
# (split walks, one team: no change), and the 2-D stencil's bench with the faster module on it.
set -uo pipefail
start=$SECONDS
log() { printf '[r3 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
nvidia-smi -L
(meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1
 targets=$(ninja -C build-gpu -t targets all | grep -E ': (c_LINKER|cpp_LINKER|CUSTOM_COMMAND)$' | cut -d: -f1 | grep -v -E '^(backends/|meson-internal)')
 ninja -C build-gpu $targets >> $OUT/gpu-build.log 2>&1; echo "build (no module) rc $?" >> $OUT/gpu-build.log) &
bp=$!
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
R=values=random,seed=42
g=()
for t in f64 f32; do
  $Z gen stencil2d:n=4096,points=5,$R --type $t -f gcsb -o $B/lap2d-$t.zsm >/dev/null & g+=($!)
done
$Z gen banded:rows=8388608,width=128,per_row=20,$R --type f64 -f gcsb -o $B/band-f64.zsm >/dev/null & g+=($!)
wait "${g[@]}"
log "blobs done"
C=($B/lap2d-f64.zsm:T $B/lap2d-f32.zsm:T $B/band-f64.zsm:T)
timeout 200 bash bench/ab-modules.sh -r 2 -n 20 .ab/c1 .ab/BS8 .ab/BS16 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -6
PICK=$(grep lap2d $OUT/ab.txt | awk '{for (i = 2; i < NF; i += 2) s[$i] += $(i + 1)} END {for (m in s) print s[m], m}' | sort -n | head -1 | cut -d' ' -f2)
log "A/B done, faster on the 2-D stencil: ${PICK:=.ab/c1}"
wait $bp
tail -1 $OUT/gpu-build.log
ZS_MODULE_DIR=$PWD/.ab/BS16 timeout 150 meson test -C build-gpu --no-rebuild --num-processes 8 > $OUT/tests.txt 2>&1
echo "tests rc $?"
grep -E '^(Ok|Fail|Skipped|Expected|Unexpected|Timeout)|FAIL' $OUT/tests.txt
log "tests done"
ZS_MODULE_DIR=$PWD/.ab/c1 timeout 60 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 20 --format gcsb --csv $OUT/layers.csv --md $OUT/layers.md \
  gen:erdos_renyi:rows=16384,p=0.01,$R gen:erdos_renyi:rows=16384,p=0.05,$R \
  gen:erdos_renyi:rows=8192,p=0.05,$R > $OUT/layers.log 2>&1
echo "layers rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/layers.log | cut -c1-110
log "layers done"
ZS_MODULE_DIR=$PWD/$PICK timeout 120 build-gpu/bench/gpu/zs-bench-gpu --no-cold --reps 10 --format gcsb --csv $OUT/bench.csv --md $OUT/bench.md \
  gen:stencil2d:n=4096,points=5,$R > $OUT/bench.log 2>&1
echo "bench ($PICK) rc $?"; grep -E "zsparse +gcsb(-det)? " $OUT/bench.log | cut -c1-110
log done
