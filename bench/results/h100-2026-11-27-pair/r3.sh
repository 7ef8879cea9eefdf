#!/usr/bin/env bash
# Device run 3 (eleventh session): the whole suite with the module of the committed tree
# (.ab/final, built from 36c7d76), whose GPU code differs from r1's .ab/pair only in comments.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_and_test .ab/final 200
log "all done"
