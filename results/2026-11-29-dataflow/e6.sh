#!/usr/bin/env bash
# What a generation at n <= 64 takes without the teams' barriers between colour groups, by the
# kinds of crew run (nbK: no barriers, K bits of crews run: 1 lanes, 2 warps, 4 blocks; nobar all
# three; timing only, the populations are wrong), beside the head (6cfb41b: the same kernels as
# 7d4b220); two rounds.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/e6; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-head generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
for round in 1 2; do
for v in head nobar nb1 nb2 nb4 nb3 nb5 nb6; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/e6.tgz -C /tmp e6
cat $W/info.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/e6/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3)
for k in sorted(t): print(k[0],k[1],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['head','nobar','nb1','nb2','nb4','nb3','nb5','nb6']])
PY
