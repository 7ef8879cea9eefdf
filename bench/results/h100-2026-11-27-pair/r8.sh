#!/usr/bin/env bash
# Device run 8 (eleventh session, review mend): the whole suite with the module whose warp-walk
# launches (SpMV, SpMVT, the pair) go through one csb_walk_launch (.ab/mend2).
set -uo pipefail
. bench/device-lib.sh
dev_begin r8
dev_build_and_test .ab/mend2 200
log "all done"
