#!/usr/bin/env bash
# Device run 6 (eleventh session): the whole suite with the module of this tree (.ab/final2: the
# warp walk's kernel picked by one helper for SpMV, SpMVT and the pair), then BiCG to 1e-8 on the
# plain 2-D Laplacian 4096^2, f64, beside cuSPARSE's BiCG: GCSB and CSR-dtANS with the
# deterministic (two products per iteration), atomic (one fused pair) and stored transposes.
set -uo pipefail
. bench/device-lib.sh
dev_begin r6
dev_build_and_test .ab/final2 170
LAP=gen:stencil2d:n=4096
common=(--tol 1e-8 --maxit 20000 --reps 2)
timeout 100 build-gpu/bench/solve/bicg-cusparse "${common[@]}" --csv "$OUT/cusparse.csv" "$LAP" \
  > "$OUT/cusparse.log" 2>&1
echo "cusparse rc $?"
for c in gcsb/deterministic gcsb/atomic dtans/stored dtans/atomic; do
  timeout 75 build-gpu/bench/solve/zs-bench-solve --backend cuda --method bicg --type f64 \
    "${common[@]}" --format "${c%/*}" --op-options "transpose=${c#*/}" \
    --csv "$OUT/${c%/*}-${c#*/}.csv" "$LAP" > "$OUT/${c%/*}-${c#*/}.log" 2>&1
  echo "$c rc $?"
done
for f in "$OUT"/*.csv; do tail -n +2 "$f"; done | cut -c1-200
log "all done"
