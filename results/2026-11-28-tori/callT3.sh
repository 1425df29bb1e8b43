#!/usr/bin/env bash
# Part 3 of the speed-up curve: the paper's variants again, now without partition mixing (parts 1
# and 2 ran them with `--no-fi`/`--fi --local-search off` only, and the mixing, on by default for
# lattices, was on). Serial GOMEA (`--fi --local-search off --no-partition-mixing`) on cores 0-3,
# one run each (limits 30 s up to 10^4, 120 s from 10^5); parallel GOMEA (`--no-fi --local-search
# off --no-partition-mixing`) on 16 CPU cores (16-31) and on the GPUs (GPU 0 with cores 4-15),
# limits 30 s up to 10^5, 60 s at 10^6, 120 s at 10^7.
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/tori3; rm -rf $W; mkdir -p $W/runs $W/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
for side in 32 100 316 1000 3162; do $B/pgomea generate torus --side $side --seed 1 -o /tmp/torus$side.txt >> $W/generate.txt 2>&1; done
P="--local-search off --no-partition-mixing --target best-known --seed 1 --json -q"
core=0
for side in 32 100 316 1000; do
  t=30; [ $side -ge 316 ] && t=120
  taskset -c $core $B/pgomea run --instance /tmp/torus$side.txt --algo serial --fi $P --time-limit $t \
    --trace $W/runs/torus$side-serial-paper.csv > $W/runs/torus$side-serial-paper.json 2> $W/runs/torus$side-serial-paper.err &
  core=$((core + 1))
done
run() { # side variant limit cores options...
  local side=$1 v=$2 t=$3 c=$4; shift 4
  taskset -c $c $B/pgomea run --instance /tmp/torus$side.txt $* $P --time-limit $t \
    --trace $W/runs/torus$side-$v.csv > $W/runs/torus$side-$v.json 2> $W/runs/torus$side-$v.err
}
( export CUDA_VISIBLE_DEVICES=0
  run 3162 gpu-paper 120 4-15 --algo parallel --backend cuda --no-fi
  for side in 32 100 316; do run $side gpu-paper 30 4-15 --algo parallel --backend cuda --no-fi; done ) &
( export CUDA_VISIBLE_DEVICES=1
  for side in 1000 316 100 32; do t=30; [ $side = 1000 ] && t=60; run $side cpu-paper $t 16-31 --algo parallel --backend cpu --no-fi; done
  run 1000 gpu-paper 60 16-31 --algo parallel --backend cuda --no-fi ) &
wait
date -u >> $W/gpus.txt
python3 - $W <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/runs/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1], d['best_fitness'], d['target'], round(d['time_s'],2), round(d['setup_s'],2), d['generations'], d['populations'], d['partition_mixes'])
    except Exception as e: print(f,e)
PY
tar czf $OUT/callT3.tgz -C /tmp tori3
cat $W/gpus.txt
