#!/usr/bin/env bash
# The review's build (`mend`: the lane's gathered comparison passed to first_differing_donor
# instead of a walk loop of its own): selftest with the data cases, tests/gpu.rs, fixed-seed runs
# equal to `final`'s, bench throughput against `final` (one round).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/b10; rm -rf $W; mkdir -p $W; P=$B/pgomea-mend
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 120 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$P generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for v in final mend; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    timeout 40 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 200000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*}).json 2>/dev/null
  done
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 40 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],str(d.get('solution')))
for k,vs in sorted(g.items()):
    base=vs.get('final'); print(k, base[:3] if base else None, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/b10.tgz -C /tmp b10
cat $W/info.txt $W/equality.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt; grep -E "^\| (G81|t100)" $W/bench.txt | cut -d'|' -f2,5,8
