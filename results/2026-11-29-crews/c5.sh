#!/usr/bin/env bash
# The committed teams build (head, 5338d8e) on the G-set graphs short of the best known (issue 17 item 4), 60 s, seed 1.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/c5; rm -rf $W; mkdir -p $W; P=$B/pgomea-head
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
for g in G23:13344 G35:7687 G63:27047 G67:6950; do
  name=${g%%:*}; best=${g##*:}
  timeout 120 $P run --instance $R/.gpu/inst/$name.txt --algo parallel --backend cuda --time-limit 60 --target $best --seed 1 --json > /tmp/$name.json 2> $W/$name.err
  python3 -c "import json; r=json.load(open('/tmp/$name.json')); print('$name', r['best_fitness'], $best, round(100*r['best_fitness']/$best,3), r['reached_target'], r['generations'], r['populations'], round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/$name.json','w'))" >> $W/gset.txt 2>&1
done
date -u >> $W/info.txt
tar czf $OUT/c5.tgz -C /tmp c5
cat $W/info.txt $W/gset.txt
