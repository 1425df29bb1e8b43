#!/usr/bin/env bash
# Every crew with 4 subfunction evaluations in flight (e4), with and without .maxnreg 64, against base.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins2.txz -C $B; chmod +x $B/*
W=/tmp/a3; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-base generate torus --side 100 --seed 1 -o $W/t100.txt
for round in 1 2; do
for v in base e4 e4c; do
  bin=$B/pgomea-${v%c}; cap=""; [[ $v == *c ]] && cap=64
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    env ${cap:+PGOMEA_EXP_MAXNREG=$cap} $bin bench throughput --instance $inst --backend cuda --population 16,32,64,256,1024 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
for v in base e4 e4c; do
  bin=$B/pgomea-${v%c}; cap=""; [[ $v == *c ]] && cap=64
  for inst in $R/.gpu/inst/G81.txt $R/.gpu/inst/G1.txt $W/t100.txt; do
    env ${cap:+PGOMEA_EXP_MAXNREG=$cap} $bin run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 200000 --seed 2 --json > $W/eq-$v-$(basename $inst .txt).json 2>/dev/null
  done
done
python3 - $W <<'PY'
import json,glob,sys,collections
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],str(d.get('solution')))
for k,vs in sorted(g.items()):
    base=vs.get('base'); print(k, base[:3] if base else None, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt
tar czf $OUT/a3.tgz -C /tmp a3
cat $W/info.txt
