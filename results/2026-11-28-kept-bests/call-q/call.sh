#!/usr/bin/env bash
# Dump of the populations' last bests (prototype PGOMEA_DUMP_BESTS) on the 10^6 torus at 30 s.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wQ; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsQ.txt
for s in 1 2 3 4; do for v in "default:" "n8:--n-base 8"; do
  name=${v%%:*}; x=${v#*:}; n=torus1000-$name-s$s
  [ $name = n8 ] && [ $s -gt 2 ] && continue
  mkdir -p $W/j/$n
  printf '%s\t30\t%s\n' "$n" "PGOMEA_DUMP_BESTS=$W/j/$n $R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $x --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsQ.txt
done; done
python3 .gpu/jobs.py /tmp/jobsQ.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2), round(d['setup_s'],2))"; done > $W/summary.txt
tar czf $OUT/callQ.tgz -C /tmp wQ
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
