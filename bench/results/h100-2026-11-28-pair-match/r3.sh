#!/usr/bin/env bash
# Device run 3 (twelfth session): the whole suite with HEAD's GPU module (.ab/mend2) and this
# tree's tests. r2's suite failed two tests that this tree mends: conformance-cuda wrote operators
# past a 16-entry array once its variants passed 16 (now sized by MAX_VARIANTS; four new variants
# run the fused GCSB pair in each kind of warp walk), and csb-threads made a context per product
# (~0.5 s each where a GPU is found; 96 products since the cpu pair cases) and ran past 60 s.
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_build_and_test .ab/mend2 200
# the new variants at work: the pair lines of the blocked formats name them
timeout 120 build-gpu/tests/conformance/conformance --require cuda --format gcsb --format csb \
  --random-only > "$OUT/conformance-blocked.txt" 2>&1  # kept: its pair lines, r3-conformance-pairs.txt
echo "conformance (gcsb, csb, random matrices) rc $?: $(tail -n 1 "$OUT/conformance-blocked.txt")"
grep ' pair a=' "$OUT/conformance-blocked.txt" | grep -c 'cuda\[pair-walk-split\]'
log "all done"
