#!/usr/bin/env bash
# The G-set graphs below 10^5 vertices, where the best's mix now runs beside the next generation
# (one generation later than before): the head before (b32e1fb, pgomea-old) against the new
# build at 10 s, seed 1, on the largest toroidal and random graphs; G23 and G35 at 60 s, two
# more seeds, with the new build; pgomea selftest of the new build.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/wL; rm -rf $W; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
: > /tmp/jobsL.txt
for g in G55 G60 G65 G70 G72 G77 G81 G22; do for b in old new; do
  bin=pgomea; [ $b = old ] && bin=pgomea-old
  printf '%s\t10\t%s\n' "$g-$b-s1" "$R/.gpu/bin/$bin run --set G --name $g --algo parallel --backend cuda --time-limit 10 --target best-known --seed 1 --json --quiet > $W/j/$g-$b-s1.json" >> /tmp/jobsL.txt
done; done
for g in G23 G35; do for s in 4 5; do
  printf '%s\t60\t%s\n' "$g-new-s$s" "$R/.gpu/bin/pgomea run --set G --name $g --algo parallel --backend cuda --time-limit 60 --target best-known --seed $s --json --quiet > $W/j/$g-new-s$s.json" >> /tmp/jobsL.txt
done; done
python3 .gpu/jobs.py /tmp/jobsL.txt $(nvidia-smi -L | wc -l) $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do python3 -c "
import json; d=json.load(open('$f'))
print('$(basename $f .json)', d['best_fitness'], d['best_known'], round(d['time_s'],2), d['generations'], d.get('partition_mixes'))"; done > $W/summary.txt
python3 - <<'PY'
import json,glob
for f in glob.glob('/tmp/wL/j/*.json'):
    d=json.load(open(f)); d.pop('solution',None); json.dump(d, open(f,'w'))
PY
CUDA_VISIBLE_DEVICES=0 .gpu/bin/pgomea selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
tar czf $OUT/callL.tgz -C /tmp wL
cat $W/gpus.txt $W/jobs.txt $W/summary.txt; tail -3 $W/selftest.txt
