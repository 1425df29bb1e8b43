#!/usr/bin/env bash
# The annealing's fit refitted once at its early sweeps (pgomea-early: the early pace over the
# last search's early-to-whole ratio) on G63 (seeds 1-3) and G67 (seeds 1-2), parallel GOMEA on
# the GPU, 60 s, one run at a time; the head's runs of the same seeds are calls c2 and c3.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/c4; rm -rf $W; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
summ() { python3 -c "import json,hashlib; d=json.load(open('$W/r.json')); print(d['best_fitness'], round(d['evaluations']), d['generations'], d['populations'], round(d['time_s'],2))" 2>/dev/null || echo failed; }
for cfg in "G63 1" "G67 1" "G63 2" "G67 2" "G63 3"; do
  set -- $cfg
  [ $(el) -gt 300 ] && break
  timeout 75 $B/pgomea-early run --instance $R/.gpu/inst/$1.txt --algo parallel --backend cuda --time-limit 60 --seed $2 --json > $W/r.json 2> $W/$1-early-$2.err
  echo "$1 60 s seed $2 early: $(summ)" >> $W/pace.txt
  grep "annealing fitted" $W/$1-early-$2.err | sed "s/^/    /" >> $W/pace.txt
done
echo "done [$(el) s]" >> $W/info.txt
rm -f $W/r.json; tar czf $OUT/c4.tgz -C /tmp c4
cat $W/info.txt $W/pace.txt
