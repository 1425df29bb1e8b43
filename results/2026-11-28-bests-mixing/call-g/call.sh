#!/usr/bin/env bash
# 10^6 torus at 30 s: default and partition mixing, two seeds, solutions kept; each job pinned to 16 cores.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wG; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsG.txt
for s in 1 2; do for v in default mixing; do
  extra=""; [ $v = mixing ] && extra="--partition-mixing"
  printf '%s\t30\t%s\n' "t-$v-s$s" "$R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $extra --trace $W/j/t-$v-s$s.csv --json > $W/j/t-$v-s$s.json 2> $W/j/t-$v-s$s.err" >> /tmp/jobsG.txt
done; done
python3 .gpu/jobs.py /tmp/jobsG.txt 4 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f')); c=d['config']
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['setup_s'])"; done > $W/summary.txt
tar czf $OUT/callG.tgz -C /tmp wG
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
