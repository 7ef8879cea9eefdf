#!/usr/bin/env bash
# Device run 32 (H100): A/B of two pair-kernel modules built on the dev machine (.ab/P: ring variants 14/24 of run30; .ab/M2: 1 KiB rings, fills only when due, ring addressing by LOP3)
# SASS, ncu; no nvcc build.
set -uo pipefail
start=$SECONDS
log() { printf '[run32 %4ds] %s\n' $((SECONDS - start)) "$*"; }
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
nvidia-smi --query-gpu=name --format=csv,noheader
meson setup build-host -Dcuda=disabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1
ninja -C build-host tools/zsparse/zsparse tests/vans/test_vans > $OUT/build.log 2>&1; echo "host build rc $?"
Z=build-host/tools/zsparse/zsparse
log built
for m in P M2; do
  cuobjdump -sass .ab/$m/libzsparse-cuda.so | awk '/Function : .*vans_layer_pairs/{p=1} /Function : /&&!/vans_layer_pairs/{p=0} p' | gzip > $OUT/sass-$m.txt.gz
done
log sass
for v in 0 12 23 14 24; do ZS_MODULE_DIR=.ab/M2 ZS_VANS_GPU_VARIANT=$v build-host/tests/vans/test_vans tests/golden/vans /tmp cuda > $OUT/test_M2_v$v.txt 2>&1; rc=$?; echo "M2 test_vans cuda variant $v rc $rc"; [ $rc = 0 ] || tail -5 $OUT/test_M2_v$v.txt; done
log tested
$Z vans gen n=8192,k=4,seed=1,entropy=4 /tmp/p8192.vans --pairs >/dev/null &
$Z vans gen n=16384,k=4,seed=1,entropy=4 /tmp/p16384.vans --pairs >/dev/null &
$Z vans gen n=32768,k=2,seed=1,entropy=4 /tmp/p32768.vans --pairs >/dev/null &
wait
log generated
for round in 1 2; do
  for n in 8192 16384 32768; do
    for m in P M2; do
      for v in 12 23 14 24; do
        r=$(ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v $Z vans run /tmp/p$n.vans --backend cuda --reps 20)
        echo "round $round n $n module $m variant $v: $r"
      done
    done
  done
done 2>&1 | tee $OUT/ab.txt | sed 's/.*n \([0-9]*\) module \([A-Z0-9]*\) variant \([0-9]*\).*hash \([0-9a-f]*\), .*(\([0-9.]*\) per layer.*/\1 \2 v\3 \4 \5/'
log ab
M=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_int.sum
$Z vans gen n=16384,k=1,seed=1,entropy=4 /tmp/q16384.vans --pairs >/dev/null
for mv in M2:24 M2:14; do
  m=${mv%%:*} v=${mv##*:}
  ZS_MODULE_DIR=.ab/$m ZS_VANS_GPU_VARIANT=$v timeout 120 ncu --kernel-name regex:vans_layer --launch-skip 1 --launch-count 1 --metrics $M $Z vans run /tmp/q16384.vans --backend cuda --reps 2 > $OUT/ncu-$m-$v.txt 2>&1
  echo "== $m v$v"; grep -E "^\s+(smsp|l1tex|lts|sm__|gpu__)" $OUT/ncu-$m-$v.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
log done
