#!/usr/bin/env bash
# Device run 38 (H100): A/B of pair-kernel modules built on the dev machine: R1 (committed
# kernel + 1 KiB variants), R2 (predicated ring load), R3 (two fills in flight), R4 (both);
# variant 26 = 2 KiB rings with the 64-bit table entries (one extraction fewer per pair step).
set -uo pipefail
start=$SECONDS
log() { printf '[run38 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for m in R2 R4; do
  cuobjdump -sass .ab/$m/libzsparse-cuda.so | awk '/Function : .*vans_layer_pairsILb1ELi2ELb0ELb.ELb0ELi2048/{p=1} /Function : /&&!/vans_layer_pairsILb1ELi2ELb0ELb.ELb0ELi2048/{p=0} p' | gzip > $OUT/sass-$m.txt.gz
done
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/p8192.vans --pairs >/dev/null &
$Z vans gen n=16384,k=4,seed=1,entropy=4 /tmp/p16384.vans --pairs >/dev/null &
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
for mv in R2:24 R2:26 R3:24 R4:24 R4:26; do
  m=${mv%%:*} v=${mv##*:}
  ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > /tmp/t.txt 2>&1; rc=$?; echo "$m test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 /tmp/t.txt
done
wait
log tested
for round in 1 2; do
  for n in 8192 16384 32768; do
    for mv in R1:24 R2:24 R3:24 R4:24 R2:26 R4:26 R1:0; do
      m=${mv%%:*} v=${mv##*:}
      r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module $m variant $v: $r"
    done
  done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9]*\) module \([A-Z0-9]*\) variant \([0-9]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 v\3 \4 \5/'
log ab
M=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active
$Z vans gen n=16384,k=1,seed=1,entropy=4 /tmp/q16384.vans --pairs >/dev/null
for mv in R4:24 R4:26; do
  m=${mv%%:*} v=${mv##*:}
  ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v timeout 100 ncu --kernel-name regex:vans_layer --launch-skip 1 --launch-count 1 --metrics $M $Z vans run /tmp/q16384.vans --backend cuda --reps 2 > $OUT/ncu-$m-$v.txt 2>&1
  echo "== $m v$v"; grep -E "^\s+(smsp|l1tex|lts|sm__|gpu__|launch)" $OUT/ncu-$m-$v.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
log done
