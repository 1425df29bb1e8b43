#!/usr/bin/env bash
# The head (7d4b220): selftest and tests/gpu.rs; then a generation's time without the teams'
# barriers between colour groups (nobar: timing only, the populations are wrong), the bound of
# what scheduling a set after its own predecessors could give, beside the head, two rounds.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/e1; rm -rf $W; mkdir -p $W; P=$B/pgomea-head; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
for round in 1 2; do
for v in head nobar; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/e1.tgz -C /tmp e1
cat $W/info.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/e1/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3)
for k in sorted(t): print(k[0],k[1],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['head','nobar']])
PY
