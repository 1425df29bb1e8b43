#!/usr/bin/env bash
# --n-base 8 against the default on the 10^6 torus at 30 s, seeds 3-6 (after call N).
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wO; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsO.txt
for s in 3 4 5 6; do for v in "default:" "n8:--n-base 8"; do
  name=${v%%:*}; x=${v#*:}; n=torus1000-$name-s$s
  printf '%s\t30\t%s\n' "$n" "$R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $x --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsO.txt
done; done
python3 .gpu/jobs.py /tmp/jobsO.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2))"; done > $W/summary.txt
tar czf $OUT/callO.tgz -C /tmp wO
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
