#!/usr/bin/env bash
# Device run 4 (fourteenth session, the session's last device seconds): would renumbering R-MAT's
# columns by descending frequency help dtANS's gathers? colprobe.c (public API) times SpMV of the
# few-valued R-MAT f64 as generated and with its columns renumbered (x permuted to match), in dtANS
# and CSR on cuda, module .ab/at; no change to the library.
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_host_tool
gcc -O2 -std=c11 -Iinclude bench/results/h100-2026-11-28-pair-teams/colprobe.c -Lbuild-host \
  -lzsparse -lm -Wl,-rpath,"$PWD/build-host" -o /tmp/colprobe
log "built"
for v in set,distinct=64 random; do
  ZS_MODULE_DIR=$PWD/.ab/at timeout 100 /tmp/colprobe "rmat:scale=22,per_row=16,values=$v,seed=42" \
    cuda 20 2>&1 | tee -a "$OUT/colprobe.txt"
  log "$v done"
done
