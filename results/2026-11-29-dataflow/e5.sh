#!/usr/bin/env bash
# Local search's entries built once, in the form the run's backend reads (colors, the head of
# this change) against 7d4b220 (head): selftest and tests/gpu.rs of the change, fixed-seed runs
# equal, and the 10^7 torus's set-up and peak memory (35 s runs), one after the other.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/e5; rm -rf $W; mkdir -p $W; P=$B/pgomea-colors; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate torus --dims 3 --side 15 --weights gaussian --seed 1 -o $W/ga15.txt > /dev/null
$P generate nk --n 2000 --k 5 --seed 1 -o $W/nk2k.nk > /dev/null
I="$R/.gpu/inst/G1.txt $R/.gpu/inst/G63.txt $R/.gpu/inst/G81.txt $W/t100.txt $W/ga15.txt $W/nk2k.nk"
for v in head colors; do
  for inst in $I; do
    timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --max-evals 300000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*}).json 2>/dev/null
  done
  timeout 60 $B/pgomea-$v run --instance $R/.gpu/inst/G1.txt --algo parallel --backend cuda --local-search offspring --max-evals 300000 --seed 2 --json > $W/eq-$v-G1off.json 2>/dev/null
  timeout 60 $B/pgomea-$v run --instance $W/t100.txt --algo serial --max-evals 100000 --seed 2 --json > $W/eq-$v-t100serial.json 2>/dev/null
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections,hashlib
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],hashlib.md5(str(d.get('solution')).encode()).hexdigest()[:8], round(d['time_s'],2), round(d['setup_s'],2))
for k,vs in sorted(g.items()):
    a,b=vs.get('head'),vs.get('colors'); print(k, a, b, 'equal' if a and b and a[:4]==b[:4] else 'DIFFER')
PY
echo "equality done [$(el) s]" >> $W/info.txt
$P generate torus --side 3162 --seed 1 -o /tmp/t3162.txt > /dev/null 2>&1
for v in head colors; do
  timeout 90 $B/pgomea-$v run --instance /tmp/t3162.txt --algo parallel --backend cuda --time-limit 35 --seed 1 --json > $W/t7-$v.json 2> $W/t7-$v.err
  python3 -c "import json; d=json.load(open('$W/t7-$v.json')); print('t7', '$v', d['best_fitness'], 'setup %.2f s'%d['setup_s'], 'host %.2f GiB'%(d['peak_host_memory_bytes']/2**30), 'device %.2f GiB'%(d['peak_device_memory_bytes']/2**30))" >> $W/t7.txt
  python3 -c "import json; d=json.load(open('$W/t7-$v.json')); d.pop('solution',None); json.dump(d,open('$W/t7-$v.json','w'))"
done
echo "t7 done [$(el) s]" >> $W/info.txt
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/*.nk $W/t100.txt $W/ga15.txt
tar czf $OUT/e5.tgz -C /tmp e5
cat $W/info.txt $W/equality.txt $W/t7.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt
