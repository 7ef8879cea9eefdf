#!/usr/bin/env bash
# Device run 4: raw-column kernel (VMODE 4) with the f64 gathers of a segment in flight together.
# Modules built on the dev machine for sm_90: .ab/new (committed kernel: two chunks of 4, the
# second after the first's products), .ab/v1 (one chunk of 8: CH = PER), .ab/v2 (the second chunk
# issued before the first's products, as the 3-block raw-values kernel does: EARLY).
set -uo pipefail
start=$SECONDS
log() { printf '[r4 %4ds] %s\n' $((SECONDS - start)) "$*"; }
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
mkdir -p $OUT
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C build-host tools/zsparse/zsparse >/dev/null 2>&1 || { echo host build failed; exit 1; }
Z=build-host/tools/zsparse/zsparse
B=/tmp/blobs; mkdir -p $B
S=values=set,distinct=64,seed=42
$Z gen erdos_renyi:rows=4194304,per_row=16,$S --type f64 -f dtans -o $B/er_r.zsm >/dev/null &
$Z gen rmat:scale=22,per_row=16,$S --type f64 -f dtans --options columns=raw -o $B/rm_r.zsm >/dev/null &
wait
log "blobs done"
C=($B/er_r.zsm:N $B/rm_r.zsm:N $B/rm_r.zsm:N:col_slabs=1 $B/er_r.zsm:T:transpose=atomic)
bash bench/ab-modules.sh -c -r 2 -n 20 .ab/new .ab/v1 .ab/v2 -- "${C[@]}" > $OUT/ab.txt 2>&1
echo "ab rc $?"; grep -v "^ok" $OUT/ab.txt | tail -10
log done
