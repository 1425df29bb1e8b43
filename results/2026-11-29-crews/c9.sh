#!/usr/bin/env bash
# The teams at 128 solutions (the multi-start scheme's size below the H200's 132 multiprocessors,
# so the cooperative one-pass kernel, teams of 2-3 blocks): head (5338d8e's code) against 593b98e
# (mend), two rounds, side by side.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/c9; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
P=$B/pgomea-head
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$P generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for round in 1 2; do
for v in mend head; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 96,128 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/c9.tgz -C /tmp c9
cat $W/info.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/c9/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3); t[(h[1],int(a[4]))]['way']=[a[3].strip()[-40:]]
for k in sorted(t): print(k[0],k[1],t[k]['way'][0],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['mend','head']])
PY
