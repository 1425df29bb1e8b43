#!/usr/bin/env bash
# The grid and team barriers' spin load at GPU scope (gpuld: ld.relaxed.gpu) instead of the
# system scope the compiler gives a relaxed atomic load (ld.relaxed.sys), beside the head:
# generations (bench throughput) and annealing (the control, --anneal-only, 10 s), two rounds
# side by side; fixed-seed runs must be equal.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/e3; rm -rf $W; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-head generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$B/pgomea-head generate torus --dims 3 --side 15 --weights gaussian --seed 1 -o $W/ga15.txt > /dev/null
for v in head gpuld; do
  for inst in $R/.gpu/inst/G1.txt $R/.gpu/inst/G81.txt $W/t100.txt; do
    timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --max-evals 300000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*}).json 2>/dev/null
  done
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections,hashlib
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],hashlib.md5(str(d.get('solution')).encode()).hexdigest()[:8], round(d['time_s'],2))
for k,vs in sorted(g.items()):
    a,b=vs.get('head'),vs.get('gpuld'); print(k, a, b, 'equal' if a and b and a[:4]==b[:4] else 'DIFFER')
PY
echo "equality done [$(el) s]" >> $W/info.txt
for round in 1 2; do
for v in head gpuld; do
  for inst in $R/.gpu/inst/G1.txt $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,64,256 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
echo "bench done [$(el) s]" >> $W/info.txt
for round in 1 2; do
  for inst in $R/.gpu/inst/G1.txt $R/.gpu/inst/G63.txt $W/t100.txt $W/ga15.txt; do
    for v in head gpuld; do
      n=$(basename ${inst%.*})
      timeout 40 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --anneal-only --time-limit 10 --seed 1 --json > /tmp/a.json 2> $W/ao-$v-$n-$round.err
      python3 -c "import json; r=json.load(open('/tmp/a.json')); print('$n', '$v', $round, r['best_fitness'], round(r['evaluations']), r['populations'], round(r['time_s'],2), round(r['setup_s'],2))" >> $W/anneal.txt 2>&1
    done
  done
done
echo "anneal done [$(el) s]" >> $W/info.txt
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt $W/ga15.txt
tar czf $OUT/e3.tgz -C /tmp e3
cat $W/info.txt $W/equality.txt $W/anneal.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/e3/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3)
for k in sorted(t): print(k[0],k[1],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['head','gpuld']])
PY
