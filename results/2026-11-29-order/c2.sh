#!/usr/bin/env bash
# The time fit of the annealing (pgomea-pace: a sweep's growth with the population measured from
# the last two sizes) against the head (proportional growth) on G63 and G67, parallel GOMEA on
# the GPU, 60 s, two seeds, one run at a time. (Call c1 ran these with serial GOMEA, the
# default of `run`, by mistake.)
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/c2; rm -rf $W; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
summ() { python3 -c "import json,hashlib; d=json.load(open('$W/r.json')); print(d['best_fitness'], round(d['evaluations']), d['generations'], d['populations'], round(d['time_s'],2))" 2>/dev/null || echo failed; }
for g in G63 G67; do
  for s in 1 2; do
    [ $(el) -gt 470 ] && break
    for v in head pace; do
      timeout 75 $B/pgomea-$v run --instance $R/.gpu/inst/$g.txt --algo parallel --backend cuda --time-limit 60 --seed $s --json > $W/r.json 2> $W/$g-$v-$s.err
      echo "$g 60 s seed $s $v: $(summ)" >> $W/pace.txt
      grep "annealing fitted" $W/$g-$v-$s.err | sed "s/^/    /" >> $W/pace.txt
    done
  done
done
echo "done [$(el) s]" >> $W/info.txt
rm -f $W/r.json; tar czf $OUT/c2.tgz -C /tmp c2
cat $W/info.txt $W/pace.txt
