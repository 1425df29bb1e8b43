#!/usr/bin/env bash
# ncu of the cooperative one-pass kernel on G81 at n = 16 without barriers: all crews (nobar) and
# the lanes' and warps' pairs alone (nb3): where the work that is left goes.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/e7; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
$NCU --version | tail -1 >> $W/info.txt
for v in nobar nb3; do
$NCU --kernel-name regex:generation_one_pass --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section InstructionStats \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed_op_global_ld.sum,sm__cycles_active.avg,sm__cycles_active.max,smsp__thread_inst_executed_per_inst_executed.ratio" \
  $B/pgomea-$v bench throughput --instance $R/.gpu/inst/G81.txt --backend cuda --population 16 --generations 3 > $W/ncu-$v.txt 2>&1
done
date -u >> $W/info.txt
tar czf $OUT/e7.tgz -C /tmp e7
cat $W/info.txt
for v in nobar nb3; do echo "== $v"; grep -E "Duration|Throughput|hit_rate|sm__cycles_active|thread_inst_executed_per|Issue Slots Busy|Eligible Warps|No Eligible|Active Warps Per|stalled_(barrier|long|short|wait|lg|mio|no_inst|not_sel|branch|math|dispatch)|global_ld" $W/ncu-$v.txt | head -40; done
