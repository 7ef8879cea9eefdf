#!/usr/bin/env bash
# Device run 3 (fifteenth session, H200): module .ab/sm maps the atomic SpMVT's and the pair's
# scatters through col_perm inside the kernels (scatter_map; long rows through long_cols mapped)
# instead of r2's (.ab/cp2) copies of y and z by encoded column, which cost R-MAT's atomic SpMVT
# 1293 -> 1584 us and its pair 1944 -> 2096 (r1). A/B on R-MAT scale 22 f64 with 64 values,
# encoded by this tree's defaults (col_order=auto: renumbered) and with col_order=natural, each
# module checked against the host first; then the whole suite with .ab/sm.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_bg
dev_host_tool
M=rmat:scale=22,per_row=16,values=set,distinct=64,seed=42
dev_gen dtans rauto f64 "$M" &
dev_gen dtans:col_order=natural rnat f64 "$M" &
wait
B=/tmp/blobs
log "blobs made"
"$Z" info "$B/rauto.zsm" | grep -iE "version|col_perm" | head -4
cases=()
for b in rauto rnat; do
  cases+=("$B/$b.zsm:T:transpose=atomic" "$B/$b.zsm:pair:transpose=atomic" "$B/$b.zsm:N")
done
timeout 200 bash bench/ab-modules.sh -c -r 2 -n 20 .ab/cp2 .ab/sm -- "${cases[@]}" 2>&1 |
  tee "$OUT/ab.txt"
log "a/b done"
dev_build_wait
dev_tests .ab/sm 200
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "all done"
