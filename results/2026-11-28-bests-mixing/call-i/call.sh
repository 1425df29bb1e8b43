#!/usr/bin/env bash
# Partition mixing of the populations' bests, overlapping the generations (new build), at 10^6:
# torus and random graph, 30 s, two seeds, on against off, each job pinned to its GPU's cores.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wI; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
.gpu/bin/pgomea generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/random1e6.txt >> $W/generate.txt
: > /tmp/jobsI.txt
for s in 1 2; do for i in torus1000 random1e6; do for v in off mix; do
  extra="--no-partition-mixing"; [ $v = mix ] && extra="--partition-mixing"
  n=$i-$v-s$s
  printf '%s\t30\t%s\n' "$n" "$R/.gpu/bin/pgomea run --instance /tmp/$i.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $extra --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsI.txt
done; done; done
python3 .gpu/jobs.py /tmp/jobsI.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(100*d['best_fitness']/d['best_known'],4) if d['best_known'] else '', d['populations'], d['generations'], round(d['setup_s'],2), d['partition_mixes'], round(d['partition_mixing_s'],2), d['config']['linkage'])"; done > $W/summary.txt
tar czf $OUT/callI.tgz -C /tmp wI
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
