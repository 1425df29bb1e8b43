#!/usr/bin/env bash
# The teams as committed (team2: one team per solution where n <= blocks, else the whole grid):
# selftest with the data cases, tests/gpu.rs, compute-sanitizer memcheck and synccheck of the
# cooperative one-pass kernel, fixed-seed runs equal to the head's (mend) also at n = 128 and 512
# forced cooperative and one pass, bench throughput side by side (two rounds), the 10^6 torus at 30 s.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/c3; rm -rf $W; mkdir -p $W; P=$B/pgomea-team2; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate nk --n 2000 --k 5 --seed 1 -o $W/nk2k.nk > /dev/null
$P generate sat --n 3000 --m 12750 --seed 1 -o $W/sat3k.cnf > /dev/null
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$P generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck synccheck; do
  for inst in $R/.gpu/inst/G1.txt $W/nk2k.nk $W/sat3k.cnf; do
    tag=$tool-$(basename ${inst%.*})
    PGOMEA_CUDA_GENERATION=cooperative PGOMEA_CUDA_GROUP_PASSES=one timeout 60 $CS --tool $tool $P run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 20000 --seed 3 > $W/cs-$tag.txt 2>&1
    echo "$tag: rc $? $(grep -E 'ERROR SUMMARY' $W/cs-$tag.txt | tail -1)" >> $W/sanitizer.txt
  done
done
echo "sanitizer done [$(el) s]" >> $W/info.txt
for v in mend team2; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    for ls in off initial; do
      timeout 40 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --local-search $ls --max-evals 200000 --seed 2 --json > $W/eq-$v-$ls-$(basename ${inst%.*}).json 2>/dev/null
    done
  done
  for nb in 128 512; do
    for inst in $R/.gpu/inst/G81.txt $W/nk2k.nk; do
      PGOMEA_CUDA_GENERATION=cooperative PGOMEA_CUDA_GROUP_PASSES=one timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --local-search off --n-base $nb --max-evals 300000 --seed 4 --json > $W/eq-$v-n$nb-$(basename ${inst%.*}).json 2>/dev/null
    done
  done
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections,hashlib
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],hashlib.md5(str(d.get('solution')).encode()).hexdigest())
for k,vs in sorted(g.items()):
    base=vs.get('mend'); print(k, base, {v:(x==base) for v,x in vs.items()})
PY
echo "equality done [$(el) s]" >> $W/info.txt
for round in 1 2; do
for v in mend team2; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    echo "== $v $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64,256 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
echo "bench done [$(el) s]" >> $W/info.txt
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
for s in 2 1; do
  timeout 90 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --json > /tmp/t6-$s.json 2> $W/t6-$s.err
  python3 -c "import json; r=json.load(open('/tmp/t6-$s.json')); print('t6 seed $s', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],4), r['reached_target'], r.get('time_to_target_s'), r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/t6-$s.json','w'))" >> $W/torus.txt 2>&1
done
echo "torus done [$(el) s]" >> $W/info.txt
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/*.nk $W/*.cnf $W/t100.txt
tar czf $OUT/c3.tgz -C /tmp c3
cat $W/info.txt $W/equality.txt $W/sanitizer.txt $W/torus.txt; tail -2 $W/selftest.txt; tail -3 $W/gpu-tests.txt
python3 - <<'PY'
import re,collections
t=collections.defaultdict(lambda: collections.defaultdict(list))
for l in open('/tmp/c3/bench.txt'):
    if l.startswith('== '): _,b,inst=l.split(); h=(b,inst)
    elif re.match(r'\| [Gtns]',l):
        a=l.split('|'); t[(h[1],int(a[4]))][h[0]].append(float(a[7])*1e3)
for k in sorted(t): print(k[0],k[1],*['%s %s'%(v,' '.join('%.3f'%x for x in t[k][v])) for v in ['mend','team2']])
PY
