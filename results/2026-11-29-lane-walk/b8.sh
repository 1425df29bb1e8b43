#!/usr/bin/env bash
# The final build (`final`: `new` with LANES_TO_WARPS 2): selftest with the data cases,
# tests/gpu.rs, fixed-seed runs equal to `new`'s, the 10^6-vertex torus at 30 s, seeds 2 and 1.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/b8; rm -rf $W; mkdir -p $W; P=$B/pgomea-final
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 200 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
date -u >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$P generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for v in new final; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    for ls in off initial; do
      timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --local-search $ls --max-evals 200000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*})-$ls.json 2>/dev/null
    done
  done
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],str(d.get('solution')))
for k,vs in sorted(g.items()):
    base=vs.get('new'); print(k, base[:3] if base else None, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
for s in 2 1; do
  timeout 90 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --json > /tmp/t6-$s.json 2> $W/t6-$s.err
  python3 -c "import json; r=json.load(open('/tmp/t6-$s.json')); print('t6 seed $s', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],4), r['reached_target'], r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/t6-$s.json','w'))" >> $W/torus.txt 2>&1
done
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/b8.tgz -C /tmp b8
cat $W/info.txt $W/equality.txt $W/torus.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt
