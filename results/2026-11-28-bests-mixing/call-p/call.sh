#!/usr/bin/env bash
# The new default on the CPU backend (16 cores per job): the 10^6 torus and a 400^2 torus at 30 s,
# the bests' mixes (default) against --no-partition-mixing, seed 1.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wP; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
.gpu/bin/pgomea generate torus --side 400 --seed 1 -o /tmp/torus400.txt >> $W/generate.txt
: > /tmp/jobsP.txt
for i in torus1000 torus400; do for v in default off; do
  x=""; [ $v = off ] && x="--no-partition-mixing"; n=$i-cpu-$v-s1
  printf '%s\t30\t%s\n' "$n" "$R/.gpu/bin/pgomea run --instance /tmp/$i.txt --algo parallel --backend cpu --time-limit 30 --target best-known --seed 1 $x --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsP.txt
done; done
python3 .gpu/jobs.py /tmp/jobsP.txt 2 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], round(100*d['best_fitness']/d['best_known'],4), round(d['time_s'],2), d['backend'], d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2))"; done > $W/summary.txt
python3 - <<'PY'
import json,glob
for f in glob.glob('/tmp/wP/j/*.json'):
    d=json.load(open(f)); d.pop('solution',None); json.dump(d, open(f,'w'))
PY
tar czf $OUT/callP.tgz -C /tmp wP
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
