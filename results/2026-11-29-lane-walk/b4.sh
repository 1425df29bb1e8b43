#!/usr/bin/env bash
# The committed build (`new`) on the 10^6-vertex torus at 30 s: seeds 3-7, and seed 2 again.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b4; rm -rf $W; mkdir -p $W; P=$B/pgomea-new
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
for s in 3 4 5 6 7 2; do
  timeout 90 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --json > /tmp/t6-$s.json 2> $W/t6-$s.err
  python3 -c "import json; r=json.load(open('/tmp/t6-$s.json')); print('t6 seed $s', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],4), r['reached_target'], r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/t6-$s.json','w'))" >> $W/torus.txt 2>&1
done
date -u >> $W/info.txt
tar czf $OUT/b4.tgz -C /tmp b4
cat $W/info.txt $W/torus.txt
