#!/usr/bin/env bash
# PROTOTYPE: partition mixing of populations' bests only on the 10^6 torus at 30 s.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wH; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsH.txt
for s in 1 2; do for e in 1 4; do
  printf '%s\t30\t%s\n' "t-bests$e-s$s" "PGOMEA_MIX_NEW=0 PGOMEA_MIX_END=1 PGOMEA_MIX_EVERY=$e $R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --partition-mixing --trace $W/j/t-bests$e-s$s.csv --json > $W/j/t-bests$e-s$s.json 2> $W/j/t-bests$e-s$s.err" >> /tmp/jobsH.txt
done
  printf '%s\t30\t%s\n' "t-default-s$s" "$R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --trace $W/j/t-default-s$s.csv --json > $W/j/t-default-s$s.json 2> $W/j/t-default-s$s.err" >> /tmp/jobsH.txt
done
python3 .gpu/jobs.py /tmp/jobsH.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f')); c=d['config']
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['setup_s'], d['time_s'])"; grep PROTO ${f%.json}.err; done > $W/summary.txt
tar czf $OUT/callH.tgz -C /tmp wH
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
