#!/usr/bin/env bash
# After section 74's walk: w8 (new with differs_on comparing 8 variables a round, masked, for warps
# and blocks) against new; crew-skip probes rK on new (K bits: 1 lanes, 2 warps with the lanes'
# pairs that warps take, 4 blocks; timing only). bench throughput; fixed-seed runs of w8 vs new.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b6; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
G=$B/pgomea-new
$G generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$G generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
for round in 1 2; do
for v in new w8 r0 r1 r2 r4; do
  pops=16,32,64; [[ $v == new || $v == w8 ]] && pops=16,32,64,256,1024
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk; do
    [[ $v == r* && $inst == *nk10k* ]] && continue
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    timeout 90 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population $pops --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
for v in new w8; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt $W/nk10k.nk; do
    timeout 60 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 200000 --seed 2 --json > $W/eq-$v-$(basename ${inst%.*}).json 2>/dev/null
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
rm -f $W/eq-*.json $W/t100.txt $W/nk10k.nk
tar czf $OUT/b6.tgz -C /tmp b6
cat $W/info.txt $W/equality.txt
