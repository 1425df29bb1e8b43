#!/usr/bin/env bash
# Local search's entries in slices of a warp's positions (sell) against the partners (pn,
# c6104f1) and the head before both (old, ad08914): selftest and tests/gpu.rs of sell, fixed-seed
# runs equal to old's, the annealing's throughput (the control, --anneal-only, 10 s: evaluations
# done): round 1 old, pn, sell; round 2 pn, sell.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/d4; rm -rf $W; mkdir -p $W; P=$B/pgomea-sell; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate torus --dims 3 --side 22 --weights pm1 --seed 1 -o $W/pm22.txt > /dev/null
$P generate torus --dims 3 --side 15 --weights gaussian --seed 1 -o $W/ga15.txt > /dev/null
$P generate nk --n 2000 --k 5 --seed 1 -o $W/nk2k.nk > /dev/null
I="$R/.gpu/inst/G1.txt $R/.gpu/inst/G63.txt $R/.gpu/inst/G81.txt $W/t100.txt $W/pm22.txt $W/ga15.txt $W/nk2k.nk"
for v in old sell; do
  for inst in $I; do
    timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --max-evals 300000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*}).json 2>/dev/null
  done
  timeout 60 $B/pgomea-$v run --instance $R/.gpu/inst/G1.txt --algo parallel --backend cuda --local-search offspring --max-evals 300000 --seed 2 --json > $W/eq-$v-G1off.json 2>/dev/null
  timeout 60 $B/pgomea-$v run --instance $W/pm22.txt --algo serial --max-evals 100000 --seed 2 --json > $W/eq-$v-pm22serial.json 2>/dev/null
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections,hashlib
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],hashlib.md5(str(d.get('solution')).encode()).hexdigest()[:8], round(d['time_s'],2))
for k,vs in sorted(g.items()):
    a,b=vs.get('old'),vs.get('sell'); print(k, a, b, 'equal' if a and b and a[:4]==b[:4] else 'DIFFER')
PY
echo "equality done [$(el) s]" >> $W/info.txt
for round in 1 2; do
  for inst in $R/.gpu/inst/G63.txt $R/.gpu/inst/G81.txt $W/t100.txt $W/pm22.txt; do
    vs="pn sell"; [ $round = 1 ] && vs="old pn sell"
    for v in $vs; do
      n=$(basename ${inst%.*})
      timeout 40 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --anneal-only --time-limit 10 --seed 1 --json > /tmp/a.json 2> $W/ao-$v-$n-$round.err
      python3 -c "import json; r=json.load(open('/tmp/a.json')); print('$n', '$v', $round, r['best_fitness'], round(r['evaluations']), r['populations'], round(r['time_s'],2), round(r['setup_s'],2))" >> $W/anneal.txt 2>&1
    done
  done
done
echo "anneal done [$(el) s]" >> $W/info.txt
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/*.nk $W/t100.txt $W/pm22.txt $W/ga15.txt
tar czf $OUT/d4.tgz -C /tmp d4
cat $W/info.txt $W/equality.txt $W/anneal.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt
