#!/usr/bin/env bash
# Device run 1 (ninth session): where CSR-dtANS SpMV's time goes, by probe modules. Module A/B
# without checks (the probes compute wrong products on purpose): .ab/base = HEAD's kernels;
# probe.diff built with -DZS_DT_PROBE=1 (.ab/p1: no x gathers, the decoded column still feeds the
# sum) and =2 (.ab/p2: no raw-value loads either). The decode, the stream and y are unchanged.
# Modules: bash bench/module-variant.sh pN bench/results/h100-2026-11-27-dtans-probe/probe.diff
# -- -DZS_DT_PROBE=N; base: no diff.
set -uo pipefail
. bench/device-lib.sh
dev_begin r1
dev_host_tool
S=values=set,distinct=64,seed=42 R=values=random,seed=42
S3=stencil3d:n=160,points=27 L2=stencil2d:n=4096,points=5 BD=banded:rows=8388608,width=128,per_row=20
ER=erdos_renyi:rows=4194304,per_row=16
dev_gen dtans st27-set f64 $S3,$S lap-set f64 $L2,$S band-set f64 $BD,$S er-set f64 $ER,$S
dev_gen dtans st27-rnd f64 $S3,$R band-rnd f64 $BD,$R st27-rnd32 f32 $S3,$R
log "blobs done"
ls -l $B
C=()
for c in st27-set lap-set band-set er-set st27-rnd band-rnd st27-rnd32; do C+=("$B/$c.zsm:N"); done
timeout 480 bash bench/ab-modules.sh -r 2 -n 20 .ab/base .ab/p1 .ab/p2 -- "${C[@]}" > "$OUT/ab.txt" 2>&1
echo "ab rc $?"; tail -14 "$OUT/ab.txt"
log "all done"
