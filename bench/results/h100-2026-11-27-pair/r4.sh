#!/usr/bin/env bash
# Device run 4 (eleventh session): the whole suite with the cpu backend's fused CSR pair and the
# conformance test's new check (a deterministic output of zs_spmv_pair has the bits of its single
# product: on the GPU, the fused GCSB and dtANS pairs' y against zs_spmv N). The GPU module is
# unchanged since 36c7d76 (.ab/final).
set -uo pipefail
. bench/device-lib.sh
dev_begin r4
dev_build_and_test .ab/final 200
grep -c "^ok .* pair " build-gpu/meson-logs/testlog.txt
log "all done"
