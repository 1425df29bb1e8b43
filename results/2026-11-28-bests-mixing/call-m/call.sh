#!/usr/bin/env bash
# The G-set graphs below 10^5 vertices, where the best's mix now runs beside the next generation
# (one generation later than before): the head before (b32e1fb, pgomea-old) against the new
# build at 10 s, seed 1, on the largest toroidal and random graphs (call L again with set C).
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/wM; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
: > /tmp/jobsM.txt
for g in G55 G60 G65 G70 G72 G77 G81 G22; do for b in old new; do
  bin=pgomea; [ $b = old ] && bin=pgomea-old
  printf '%s\t10\t%s\n' "$g-$b-s1" "$R/.gpu/bin/$bin run --set C --name $g --algo parallel --backend cuda --time-limit 10 --target best-known --seed 1 --json --quiet > $W/j/$g-$b-s1.json" >> /tmp/jobsM.txt
done; done
python3 .gpu/jobs.py /tmp/jobsM.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(d['time_s'],2), d['generations'], d.get('partition_mixes'))"; done > $W/summary.txt
python3 - <<'PY'
import json,glob
for f in glob.glob('/tmp/wM/j/*.json'):
    d=json.load(open(f)); d.pop('solution',None); json.dump(d, open(f,'w'))
PY
tar czf $OUT/callM.tgz -C /tmp wM
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
