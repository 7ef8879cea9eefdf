#!/usr/bin/env bash
# Device run 19 (tenth session): the whole suite after the review mend (the GPU module widens
# row_nnz through dtans_row_nnz_widen, shared with the cpu backend), module .ab/mend.
set -uo pipefail
. bench/device-lib.sh
dev_begin r19
dev_build_and_test .ab/mend 200
log "all done"
