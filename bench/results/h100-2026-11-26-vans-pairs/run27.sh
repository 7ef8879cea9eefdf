#!/usr/bin/env bash
# Device run 27 (H100): stall reasons of the pair kernel, N = 16384 and 8192 (one layer each).
set -uo pipefail
mkdir -p $OUT
[ -e ../shared ] || ln -s "$PWD/shared" ../shared
[ -x build-gpu/tools/zsparse/zsparse ] || { meson setup build-gpu -Dcuda=enabled -Dhip=disabled -Dbuildtype=release >/dev/null 2>&1; ninja -C build-gpu >/dev/null 2>&1; }
Z=build-gpu/tools/zsparse/zsparse
M=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,lts__t_sector_hit_rate.pct,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second
for n in 16384 8192; do
  $Z vans gen n=$n,k=1,seed=1,entropy=4 /tmp/p$n.vans --pairs >/dev/null
  ncu --kernel-name regex:vans_layer --launch-skip 1 --launch-count 1 --metrics $M $Z vans run /tmp/p$n.vans --backend cuda --reps 2 > $OUT/ncu-$n.txt 2>&1
  echo "== $n"; grep -E "^\s+(smsp|l1tex|lts|sm__|gpu__)" $OUT/ncu-$n.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
