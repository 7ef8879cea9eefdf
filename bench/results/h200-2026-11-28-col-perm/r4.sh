#!/usr/bin/env bash
# Device run 4 (fifteenth session, H200, the session's last device seconds): issue 4's
# random-valued table on this device kind, default encoding of this tree (col_order=auto:
# R-MAT renumbered), f64 and f32, warm and cold, cuSPARSE beside; module .ab/cp2 (the committed
# GPU code). The bench rewrites its CSV after each matrix, so a cut run keeps what it measured.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_build_bg
dev_build_wait
export ZS_MODULE_DIR=$PWD/.ab/cp2
timeout 400 build-gpu/bench/gpu/zs-bench-gpu --reps 10 --format dtans --csv "$OUT/bench.csv" \
  --md "$OUT/bench.md" suite >"$OUT/bench.log" 2>&1
echo "bench rc $?"
grep -E "zs_encode dtans|zsparse +dtans +N|cusparse +(csr-alg1|csr-alg2|coo-alg1|sell32) +N" \
  "$OUT/bench.log" | cut -c1-110
log "all done"
