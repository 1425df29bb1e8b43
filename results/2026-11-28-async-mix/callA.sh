#!/usr/bin/env bash
# Mixes that span several generations in runs bounded by time (new) against the head before
# (base, caeb83e's semantics), two GPUs of one host, jobs two at a time (16 cores each);
# tests/gpu.rs and pgomea selftest on the new build as jobs too.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wA; rm -rf $W; mkdir -p $W/j /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
tar xJf .gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin
$B/pgomea generate torus --side 1000 --seed 1 -o /tmp/torus1000.txt > $W/generate.txt
$B/pgomea generate torus --side 400 --weights gaussian --seed 1 -o /tmp/g400.txt >> $W/generate.txt 2>&1
$B/pgomea generate torus --dims 3 --side 50 --weights gaussian --seed 1 -o /tmp/g50x3.txt >> $W/generate.txt 2>&1
J=/tmp/jobsA.txt; : > $J
printf '%s\t70\t%s\n' gpu-tests "cd /tmp && $B/gpu-tests --test-threads=1 > $W/gpu-tests.txt 2>&1; echo rc \$? >> $W/gpu-tests.txt" >> $J
printf '%s\t60\t%s\n' selftest "timeout 200 $B/pgomea selftest > $W/selftest.txt 2>&1; echo rc \$? >> $W/selftest.txt" >> $J
job() { # name seconds binary args...
  local n=$1 t=$2 bin=$3; shift 3
  printf '%s\t%s\t%s\n' "$n" "$t" "$bin run $* --algo parallel --backend cuda --json > $W/j/$n.json 2> $W/j/$n.err" >> $J
}
for s in 1 2 3 4 5 6; do job torus1000-new-s$s 34 $B/pgomea --instance /tmp/torus1000.txt --time-limit 30 --target best-known --seed $s --trace $W/j/torus1000-new-s$s.csv; done
job torus1000-base-s2 34 $B/pgomea-base --instance /tmp/torus1000.txt --time-limit 30 --target best-known --seed 2 --trace $W/j/torus1000-base-s2.csv
for b in base new; do bin=$B/pgomea; [ $b = base ] && bin=$B/pgomea-base
  for s in 1 2 3; do for g in g400 g50x3; do job $g-$b-s$s 11 $bin --instance /tmp/$g.txt --time-limit 10 --seed $s; done; done
  for G in G65 G81; do job $G-$b-s1 11 $bin --set G --name $G --time-limit 10 --target best-known --seed 1; done
done
for G in G23 G35 G36 G37 G40; do job $G-new-s1-60 61 $B/pgomea --set G --name $G --time-limit 60 --target best-known --seed 1; done
python3 .gpu/jobs.py $J 2 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
bk=d.get('best_known'); pct=round(100*d['best_fitness']/bk,4) if bk else ''
print('$(basename $f .json)', d['best_fitness'], pct, d['time_s'] if d.get('reached_target') else '', d['populations'], d['generations'], d['partition_mixes'], round(d['partition_mixing_s'],2), round(d['setup_s'],2))" 2>&1; done > $W/summary.txt
python3 - <<'PY' $W/j
import json,glob,sys
for f in glob.glob(sys.argv[1]+'/*.json'):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callA.tgz -C /tmp wA
cat $W/gpus.txt $W/jobs.txt; tail -3 $W/gpu-tests.txt $W/selftest.txt; cat $W/summary.txt
