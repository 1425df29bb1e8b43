#!/usr/bin/env bash
# Issue 16 item 5's speed-up curve with today's build, part 1: parallel GOMEA on the GPU and on
# 16 CPU cores, paper variant (no FI, no local search) and default, 2D tori of 10^3 to 10^7
# vertices (weights 1..5, even sides: the optimum is the total weight, stated in the file),
# seed 1, `--target best-known`, limits 30 s (up to 10^5), 60 s (10^6), 120 s (10^7). Two GPUs
# of one host, jobs two at a time (jobs.py: one GPU and 16 cores per job, longest first).
# Serial GOMEA (one core) is part 2 (callT2.sh). Names as benchmarks/tori_scaling.sh writes
# them, for benchmarks/tori_figure.py.
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/tori; rm -rf $W; mkdir -p $W/runs $W/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
for side in 32 100 316 1000 3162; do $B/pgomea generate torus --side $side --seed 1 -o /tmp/torus$side.txt >> $W/generate.txt 2>&1; done
date -u >> $W/gpus.txt
J=/tmp/jobsT1.txt; : > $J
job() { # side variant limit estimate options...
  local side=$1 v=$2 t=$3 est=$4; shift 4
  printf '%s\t%s\t%s\n' "torus$side-$v" "$est" "$B/pgomea run --instance /tmp/torus$side.txt $* --target best-known --time-limit $t --seed 1 --json -q --trace $W/runs/torus$side-$v.csv > $W/runs/torus$side-$v.json 2> $W/runs/torus$side-$v.err" >> $J
}
for side in 32 100 316; do
  job $side gpu-paper 30 5 --algo parallel --backend cuda --no-fi --local-search off
  job $side gpu-default 30 5 --algo parallel --backend cuda
  job $side cpu-paper 30 20 --algo parallel --backend cpu --no-fi --local-search off
  job $side cpu-default 30 20 --algo parallel --backend cpu
done
job 1000 gpu-paper 60 60 --algo parallel --backend cuda --no-fi --local-search off
job 1000 gpu-default 60 30 --algo parallel --backend cuda
job 1000 cpu-paper 60 62 --algo parallel --backend cpu --no-fi --local-search off
job 1000 cpu-default 60 62 --algo parallel --backend cpu
job 3162 gpu-paper 120 125 --algo parallel --backend cuda --no-fi --local-search off
job 3162 gpu-default 120 125 --algo parallel --backend cuda
python3 .gpu/jobs.py $J 2 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
python3 - $W/runs <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1], d['best_fitness'], d['target'], round(d['time_s'],2), round(d['setup_s'],2), d['generations'], d['populations'], d.get('peak_host_memory_bytes'), d.get('peak_device_memory_bytes'))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callT1.tgz -C /tmp tori
cat $W/gpus.txt $W/jobs.txt
