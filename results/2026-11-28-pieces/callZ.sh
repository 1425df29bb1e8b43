#!/usr/bin/env bash
# The 10^7-vertex torus at 120 s: the head before (base) and the pieces (new), one H200.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wZ; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
B=$R/.gpu/bin
$B/pgomea generate torus --side 3162 --seed 1 -o /tmp/torus3162.txt > $W/generate.txt
for b in new base; do bin=$B/pgomea; [ $b = base ] && bin=$B/pgomea-base
  n=torus3162-$b-s1
  $bin run --instance /tmp/torus3162.txt --algo parallel --backend cuda --time-limit 120 --target best-known --seed 1 --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err
  echo "$n rc $?" >> $W/jobs.txt; date -u >> $W/jobs.txt
done
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
bk=d.get('best_known'); pct=round(100*d['best_fitness']/bk,4) if bk else ''
print('$(basename $f .json)', d['best_fitness'], pct, d['time_s'] if d.get('reached_target') else '', d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2), round(d['setup_s'],2))" 2>&1; done > $W/summary.txt
python3 - <<'PY' $W/j
import json,glob,os,sys
for f in glob.glob(sys.argv[1]+'/*.json'):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callZ.tgz -C /tmp wZ
cat $W/gpus.txt $W/generate.txt $W/jobs.txt $W/summary.txt
