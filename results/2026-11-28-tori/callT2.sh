#!/usr/bin/env bash
# Part 2 of the speed-up curve (callT1.sh has part 1): serial GOMEA on one core, paper variant
# (`--fi --local-search off`) and default, tori of 10^3 to 10^6 vertices, limits 30 s (10^3,
# 10^4) and 120 s (10^5, 10^6; a limit hit is a lower bound), eight runs at once, each pinned
# to a core of its own (0-7). Beside them, on the two GPUs with cores 8-19 and 20-31, the
# 10^6 torus with the defaults at 30 s, seeds 2-7 (issue 16 item 2), one per GPU at a time
# (jobs.py).
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/tori2; rm -rf $W; mkdir -p $W/runs $W/seeds $W/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
for side in 32 100 316 1000; do $B/pgomea generate torus --side $side --seed 1 -o /tmp/torus$side.txt >> $W/generate.txt 2>&1; done
core=0
for side in 32 100 316 1000; do
  t=30; [ $side -ge 316 ] && t=120
  for v in paper default; do
    opts="--algo serial"; [ $v = paper ] && opts="--algo serial --fi --local-search off"
    taskset -c $core $B/pgomea run --instance /tmp/torus$side.txt $opts --target best-known --time-limit $t --seed 1 --json -q \
      --trace $W/runs/torus$side-serial-$v.csv > $W/runs/torus$side-serial-$v.json 2> $W/runs/torus$side-serial-$v.err &
    core=$((core + 1))
  done
done
J=/tmp/jobsT2.txt; : > $J
for s in 2 3 4 5 6 7; do
  printf '%s\t32\t%s\n' "torus1000-gpu-default-s$s" "taskset -c \$([ \$CUDA_VISIBLE_DEVICES = 0 ] && echo 8-19 || echo 20-31) $B/pgomea run --instance /tmp/torus1000.txt --algo parallel --backend cuda --target best-known --time-limit 30 --seed $s --json -q --trace $W/seeds/s$s.csv > $W/seeds/s$s.json 2> $W/seeds/s$s.err" >> $J
done
python3 .gpu/jobs.py $J 2 $W/logs > $W/jobs.txt 2>&1
wait
date -u >> $W/gpus.txt
python3 - $W <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/*/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1], d['best_fitness'], d['target'], round(d['time_s'],2), round(d['setup_s'],2), d['generations'], d['populations'], d['partition_mixes'])
    except Exception as e: print(f,e)
PY
tar czf $OUT/callT2.tgz -C /tmp tori2
cat $W/gpus.txt $W/jobs.txt
