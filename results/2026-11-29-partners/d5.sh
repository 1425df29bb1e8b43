#!/usr/bin/env bash
# Local search entries sliced for warps (sell) on G63 seeds 1-3 and G67 seed 1 at 60 s (pairs of calls d2 and d3).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/d5; rm -rf $W; mkdir -p $W; P=$B/pgomea-sell
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
for g in G63:27047:1 G63:27047:2 G63:27047:3 G67:6950:1; do
  name=${g%%:*}; s=${g##*:}; best=${g#*:}; best=${best%%:*}
  timeout 120 $P run --instance $R/.gpu/inst/$name.txt --algo parallel --backend cuda --time-limit 60 --target $best --seed $s --json > /tmp/$name.json 2> $W/$name-$s.err
  python3 -c "import json; r=json.load(open('/tmp/$name.json')); print('$name', $s, r['best_fitness'], $best, round(100*r['best_fitness']/$best,3), r['reached_target'], r['generations'], r['populations'], round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/$name-$s.json','w'))" >> $W/gset.txt 2>&1
done
date -u >> $W/info.txt
tar czf $OUT/d5.tgz -C /tmp d5
cat $W/info.txt $W/gset.txt
