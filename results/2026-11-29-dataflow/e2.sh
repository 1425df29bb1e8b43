#!/usr/bin/env bash
# What a generation at n <= 64 takes without the teams' barriers between colour groups, by kind
# of crew (nbK: no barriers, K bits of crews run: 1 lanes, 2 warps, 4 blocks; nobar all three;
# timing only, the populations are wrong), beside the head; two rounds. Then ncu of the
# cooperative one-pass kernel on G81 at n = 16, head and nobar.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/e2; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-head generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
for round in 1 2; do
for v in head nobar nb1 nb2 nb4; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
$NCU --version | tail -1 >> $W/info.txt
for v in head nobar; do
$NCU --kernel-name regex:generation_one_pass --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active" \
  $B/pgomea-$v bench throughput --instance $R/.gpu/inst/G81.txt --backend cuda --population 16 --generations 3 > $W/ncu-$v.txt 2>&1
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/e2.tgz -C /tmp e2
cat $W/info.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/e2/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3)
for k in sorted(t): print(k[0],k[1],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['head','nobar','nb1','nb2','nb4']])
PY
for v in head nobar; do echo "== $v"; grep -E "Duration|Throughput|stalled_(barrier|long|short|wait|math|no_inst|branch|lg|membar|sleep|drain|mio|tex|imc|dispatch|not_sel|selected)|warps_active|issue_active" $W/ncu-$v.txt | head -40; done
