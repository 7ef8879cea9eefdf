#!/usr/bin/env bash
# Device run 5 (fifteenth session, H200): the whole suite on the final tree (0f3fce3: the
# encoder's one-copy row and column order, the decoder's in-place renumbering), whose GPU code is
# r2's (module .ab/cp2, built from the same backends/).
set -uo pipefail
. bench/device-lib.sh
dev_begin r5
dev_build_bg
dev_build_wait
dev_tests .ab/cp2 200
grep -E "differs|FAIL|fail" build-gpu/meson-logs/testlog.txt | head -40 >"$OUT/fails.txt"
log "all done"
