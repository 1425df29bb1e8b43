#!/usr/bin/env bash
# More independent lineages for the bests' mixes on the 10^6 torus at 30 s: the multi-start
# scheme's base size and interleaving (--n-base, --c-ims) with the new default, two seeds.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wN; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsN.txt
for s in 1 2; do for v in "default:" "c2:--c-ims 2" "n8:--n-base 8" "n8c2:--n-base 8 --c-ims 2"; do
  name=${v%%:*}; x=${v#*:}; n=torus1000-$name-s$s
  printf '%s\t30\t%s\n' "$n" "$R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $x --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsN.txt
done; done
python3 .gpu/jobs.py /tmp/jobsN.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2))"; done > $W/summary.txt
tar czf $OUT/callN.tgz -C /tmp wN
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
