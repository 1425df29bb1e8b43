#!/usr/bin/env bash
# Partition mixing's pieces (aligned form, the subfunctions' state taken when a component is
# found; new) against the head before (base), one GPU: more seeds.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wY; rm -rf $W; mkdir -p $W/j /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
tar xJf .gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin
$B/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
$B/pgomea generate torus --side 400 --weights gaussian --seed 1 -o /tmp/g400.txt >> $W/generate.txt 2>&1
$B/pgomea generate torus --dims 3 --side 50 --weights gaussian --seed 1 -o /tmp/g50x3.txt >> $W/generate.txt 2>&1
: > /tmp/jobsY.txt
for s in 5 6; do n=torus1000-new-s$s
  printf '%s\t30\t%s\n' "$n" "$B/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --trace $W/j/$n.csv --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsY.txt
done
for b in base new; do bin=$B/pgomea; [ $b = base ] && bin=$B/pgomea-base
  n=g400-$b-s1-60
  printf '%s\t60\t%s\n' "$n" "$bin run --instance /tmp/g400.txt --algo parallel --backend cuda --time-limit 60 --seed 1 --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsY.txt
  for s in 2 3; do for g in g400 g50x3; do n=$g-$b-s$s
    printf '%s\t10\t%s\n' "$n" "$bin run --instance /tmp/$g.txt --algo parallel --backend cuda --time-limit 10 --seed $s --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsY.txt
  done; done
  for G in G65 G81; do n=$G-$b-s2
    printf '%s\t10\t%s\n' "$n" "$bin run --set C --name $G --algo parallel --backend cuda --time-limit 10 --target best-known --seed 2 --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsY.txt
  done
  for G in G22 G55 G77; do n=$G-$b-s1
    printf '%s\t10\t%s\n' "$n" "$bin run --set C --name $G --algo parallel --backend cuda --time-limit 10 --target best-known --seed 1 --json > $W/j/$n.json 2> $W/j/$n.err" >> /tmp/jobsY.txt
  done
done
python3 .gpu/jobs.py /tmp/jobsY.txt 1 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
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
timeout 120 .gpu/bin/pgomea selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
tail -3 $W/selftest.txt
tar czf $OUT/callY.tgz -C /tmp wY
cat $W/gpus.txt $W/jobs.txt | grep -v "rc 0" ; cat $W/summary.txt
