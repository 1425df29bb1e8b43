#!/usr/bin/env bash
# The committed build (`new`: a lane's walk over a gathered set, GOM's generation kernels under a
# register budget of 64 on sm_90) against `base` (3abb0f9): bench throughput, fixed-seed runs
# that must be equal, pgomea selftest and tests/gpu.rs on `new`.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b2; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; nproc >> $W/info.txt; date -u >> $W/info.txt
G=$B/pgomea-base
$G generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$G generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$G generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for round in 1 2; do
for v in base new; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    timeout 90 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64,256,1024 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
for v in base new; do
  for inst in $R/.gpu/inst/G81.txt $R/.gpu/inst/G1.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
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
    try: d=json.load(open(f))
    except Exception as e: print(f,e); continue
    g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],str(d.get('solution')))
for k,vs in sorted(g.items()):
    base=vs.get('base'); print(k, base[:3] if base else None, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
timeout 150 $B/pgomea-new selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $B/pgomea-new target/release/pgomea
(cd /tmp && timeout 200 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/b2.tgz -C /tmp b2
cat $W/info.txt $W/equality.txt; tail -3 $W/selftest.txt; tail -4 $W/gpu-tests.txt
