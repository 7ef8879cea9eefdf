#!/usr/bin/env bash
# Device run 37 (H100): pair kernel with 1 KiB rings (variants 15, 25) against 2 KiB (14, 24)
# in one module (.ab/R1, built on the dev machine); test_vans with each variant (incl. the
# long-row chains and the restored fallback loops 12, 23); SASS; ncu of 24 and 25.
set -uo pipefail
start=$SECONDS
log() { printf '[run37 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
cuobjdump -sass .ab/R1/libzsparse-cuda.so | awk '/Function : .*vans_layer_pairs/{p=1} /Function : /&&!/vans_layer_pairs/{p=0} p' | gzip > $OUT/sass-R1.txt.gz
log sass
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/p8192.vans --pairs >/dev/null &
$Z vans gen n=16384,k=4,seed=1,entropy=4 /tmp/p16384.vans --pairs >/dev/null &
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
for v in 0 25 15 24 14 12 23; do ZS_MODULE_DIR=.ab/R1 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > $OUT/test_R1_v$v.txt 2>&1; rc=$?; echo "R1 test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 $OUT/test_R1_v$v.txt; done
wait
log tested
for round in 1 2; do
  for n in 8192 16384 32768; do
    for v in 23 24 25 14 15; do
      r=$(ZS_MODULE_DIR=.ab/R1 ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
      echo "round $round n $n module R1 variant $v: $r"
    done
  done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9]*\) module \([A-Z0-9]*\) variant \([0-9]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 v\3 \4 \5/'
r=$($Z vans run /tmp/p16384.vans --backend cpu --reps 1); echo "cpu 16384: $r" | tee -a $OUT/ab.txt
log ab
M=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers
$Z vans gen n=16384,k=1,seed=1,entropy=4 /tmp/q16384.vans --pairs >/dev/null
for v in 24 25; do
  ZS_MODULE_DIR=.ab/R1 ZS_VANS_GPU_VARIANT=$v timeout 120 ncu --kernel-name regex:vans_layer --launch-skip 1 --launch-count 1 --metrics $M $Z vans run /tmp/q16384.vans --backend cuda --reps 2 > $OUT/ncu-R1-$v.txt 2>&1
  echo "== R1 v$v"; grep -E "^\s+(smsp|l1tex|lts|sm__|gpu__|launch)" $OUT/ncu-R1-$v.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
log done
