#!/usr/bin/env bash
# The 10^6 torus at 30 s: the default (n_base 16) against --n-base 32 and --n-base 64, seeds 1-4 (head build).
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wS; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
B=$R/.gpu/bin
$B/pgomea-base generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
: > /tmp/jobsS.txt
for s in 1 2 3 4; do for v in "default:" "n32:--n-base 32" "n64:--n-base 64"; do
  name=${v%%:*}; x=${v#*:}; n=torus1000-$name-s$s
  printf '%s\t30\t%s\n' "$n" "$B/pgomea-base run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s $x --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsS.txt
done; done
python3 .gpu/jobs.py /tmp/jobsS.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], round(100*d['best_fitness']/d['best_known'],4), round(d['time_s'],2) if d.get('reached_target') else '', d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2), round(d['setup_s'],2))" 2>&1; done > $W/summary.txt
python3 - <<'PY' $W/j
import json,glob,sys
for f in glob.glob(sys.argv[1]+'/*.json'):
    d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
PY
tar czf $OUT/callS.tgz -C /tmp wS
cat $W/gpus.txt $W/jobs.txt $W/summary.txt
