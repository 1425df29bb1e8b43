#!/usr/bin/env bash
# Where a set stops being a warp's and becomes a block's: the layout's bound (variables XV,
# dependent subfunctions XD; today 256 and 1024) swept with one binary (an env override in a
# test build), bench throughput on G81, t100, nk10k, sat20k; fixed-seed runs equal across bounds.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/c1; rm -rf $W; mkdir -p $W; P=$B/pgomea-x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$P generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for b in 256:1024 64:256 32:128 128:512 512:2048 16:64; do
  export XV=${b%:*} XD=${b#*:}
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    echo "== $b $(basename $inst)" >> $W/bench.txt
    timeout 60 $P bench throughput --instance $inst --backend cuda --population 16,32,64,256,1024 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
  for inst in $R/.gpu/inst/G81.txt $W/nk10k.nk; do
    timeout 40 $P run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 200000 --seed 2 --json > $W/eq-$b-$(basename ${inst%.*}).json 2>/dev/null
  done
done
python3 - $W > $W/equality.txt <<'PY'
import json,glob,sys,collections,hashlib
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    d=json.load(open(f)); g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],hashlib.md5(str(d.get('solution')).encode()).hexdigest())
for k,vs in sorted(g.items()):
    base=vs.get('256:1024'); print(k, base, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/c1.tgz -C /tmp c1
cat $W/info.txt $W/equality.txt; grep -E "^== |^\| " $W/bench.txt | head -300
