#!/usr/bin/env bash
# The new default (mixing the populations' bests on lattices of pairwise terms from 10^5 on):
# tests/gpu.rs; glasses beyond 10^5 spins and a third torus seed at 30 s, default against off.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wK; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
mkdir -p target/release && cp .gpu/bin/pgomea target/release/pgomea
(cd /tmp && CUDA_VISIBLE_DEVICES=0 $R/.gpu/bin/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1
.gpu/bin/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
.gpu/bin/pgomea generate torus --dims 3 --side 50 --weights gaussian --seed 1 -o /tmp/g3d50.txt >> $W/generate.txt 2>&1
.gpu/bin/pgomea generate torus --dims 2 --side 400 --weights gaussian --seed 1 -o /tmp/g2d400.txt >> $W/generate.txt 2>&1
: > /tmp/jobsK.txt
add() { printf '%s\t30\t%s\n' "$1" "$R/.gpu/bin/pgomea run --instance /tmp/$2.txt --algo parallel --backend cuda --time-limit 30 $3 --trace $W/j/$1.csv --json > $W/j/$1.json 2> $W/j/$1.err" >> /tmp/jobsK.txt; }
for v in default off; do
  x=""; [ $v = off ] && x="--no-partition-mixing"
  add g3d50-$v-s1 g3d50 "--seed 1 $x"
  add g2d400-$v-s1 g2d400 "--seed 1 $x"
  add torus1000-$v-s3 torus1000 "--seed 3 --target best-known $x"
done
python3 .gpu/jobs.py /tmp/jobsK.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f')); c=d['config']
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(100*d['best_fitness']/d['best_known'],4) if d['best_known'] else '', d['populations'], d['generations'], round(d['setup_s'],2), d['partition_mixes'], round(d['partition_mixing_s'],2), c['partition_mixing'], c.get('partition_mixing_chosen'))"; done > $W/summary.txt
python3 - <<'PY'
import json,glob
for f in glob.glob('/tmp/wK/j/*.json'):
    d=json.load(open(f)); d.pop('solution',None); json.dump(d, open(f,'w'))
PY
tar czf $OUT/callK.tgz -C /tmp wK
cat $W/gpus.txt $W/jobs.txt $W/summary.txt; grep -E 'test result|SKIPPED|FAILED' $W/gpu-tests.txt
