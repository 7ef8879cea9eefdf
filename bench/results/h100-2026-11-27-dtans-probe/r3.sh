#!/usr/bin/env bash
# Device run 3 (ninth session): raw-value slices handed out by the ticket counter (as coded and
# joint values are) instead of a fixed stride, with smaller slices (lane_symbols 256, 512) so
# that the last round is a small part of the work. Module A/B without checks on the large blobs
# (a host check of a 10^8-nonzero dtANS blob takes minutes); each module is checked first on a
# small random-valued 3-D stencil in both kernels. .ab/base = HEAD; .ab/dyn = raw-dynamic.diff.
# Cases: each blob with the operator's rule and with raw_blocks=3 (the kernel without spills).
# Modules: bash bench/module-variant.sh dyn bench/results/h100-2026-11-27-dtans-probe/raw-dynamic.diff
set -uo pipefail
. bench/device-lib.sh
dev_begin r3
dev_host_tool
R=values=random,seed=42
S3=stencil3d:n=160,points=27,$R BD=banded:rows=8388608,width=128,per_row=20,$R
g() { "$Z" gen "$2" --type "$3" -f dtans --options "lane_symbols=$4" -o "$B/$1.zsm" >/dev/null & }
B=/tmp/blobs; mkdir -p $B
g st27-1024 "$S3" f64 1024; g st27-512 "$S3" f64 512; g st27-256 "$S3" f64 256
g band-1024 "$BD" f64 1024; g band-256 "$BD" f64 256
g st27f-1024 "$S3" f32 1024; g st27f-256 "$S3" f32 256
g small stencil3d:n=40,points=27,$R f64 256
wait
log "blobs done"
for f in "$B"/*.zsm; do printf '%s ' "${f##*/}"; "$Z" info "$f" | grep -o 'slices=[0-9]*'; done
timeout 120 bash bench/ab-modules.sh -c -r 1 -n 5 .ab/base .ab/dyn -- "$B/small.zsm:N" \
  "$B/small.zsm:N:raw_blocks=3" "$B/small.zsm:N:raw_blocks=4" > "$OUT/check.txt" 2>&1
echo "check rc $?"; grep -c '^ok' "$OUT/check.txt"
C=()
for c in st27-1024 st27-256 band-1024 band-256 st27f-1024 st27f-256; do
  C+=("$B/$c.zsm:N" "$B/$c.zsm:N:raw_blocks=3")
done
C+=("$B/st27-512.zsm:N")
timeout 420 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/dyn -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; cat "$OUT/ab.txt"
log "all done"
