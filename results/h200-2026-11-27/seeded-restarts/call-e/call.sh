#!/usr/bin/env bash
# Restarts from the elitist on the 10^6-vertex torus at 30 s (issue 16 item 2): default against
# --elitist-restarts, seeds 1 and 2, one job per GPU, four at once.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wE; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsE.txt
for s in 1 2; do for v in default restarts; do
  extra=""; [ $v = restarts ] && extra="--elitist-restarts"
  printf '%s\t30\t%s\n' "torus1000-$v-s$s" "$R/.gpu/bin/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $extra --json > $W/j/torus1000-$v-s$s.json 2> $W/j/torus1000-$v-s$s.err" >> /tmp/jobsE.txt
done; done
python3 .gpu/jobs.py /tmp/jobsE.txt 4 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json,sys; d=json.load(open('$f')); c=d['config']
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(100*d['best_fitness']/d['best_known'],4), d['populations'], d['generations'], d['setup_s'], c['elitist_restarts'])"; done > $W/summary.txt
python3 - <<'PY' >> $W/summary.txt
import json,glob
for f in sorted(glob.glob('/tmp/wE/j/*.json')):
    d=json.load(open(f)); d.pop('solution',None)
    json.dump(d, open(f,'w'))
PY
tar czf $OUT/callE.tgz -C /tmp wE
cat $W/generate.txt $W/jobs.txt $W/summary.txt
