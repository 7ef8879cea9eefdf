#!/usr/bin/env bash
# Device run 3: the committed tree (raw columns, columns=auto for 8-byte values), built here;
# the few-valued suite in f64 with cuSPARSE beside it, one run: issue 4's few-valued table.
set -uo pipefail
start=$SECONDS
log() { printf '[r3 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
nvidia-smi -L
meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release > $OUT/gpu-build.log 2>&1 && ninja -C build-gpu >> $OUT/gpu-build.log 2>&1; echo "gpu build rc $?"
log "build done"
timeout 400 build-gpu/bench/gpu/zs-bench-gpu --csv $OUT/bench.csv --md $OUT/bench.md --no-cold --reps 10 --types f64 --format dtans suite-set > $OUT/bench.log 2> $OUT/bench.err
echo "bench rc $?"
log done
