#!/usr/bin/env bash
# Part 4 of the speed-up curve: the 10^7-vertex torus on the CPU, 120 s, as lower bounds (the GPU
# ran it in parts 1 and 3): parallel GOMEA on 16 cores (16-31), default then paper variant, and
# serial GOMEA on one core each (cores 0 and 1), default and paper at once. Beside them, issue 17
# item 4: G23 (GPU 0, cores 2-8) and G35 (GPU 1, cores 9-15) at 60 s, seed 1, the default and
# three variations of the multi-start scheme and the annealing.
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/tori4; rm -rf $W; mkdir -p $W/runs $W/gset
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
$B/pgomea generate torus --side 3162 --seed 1 -o /tmp/torus3162.txt > $W/generate.txt 2>&1
Q="--target best-known --seed 1 --json -q --time-limit 120"
run() { # variant cores options...
  local v=$1 c=$2; shift 2
  taskset -c $c $B/pgomea run --instance /tmp/torus3162.txt $* $Q --trace $W/runs/torus3162-$v.csv > $W/runs/torus3162-$v.json 2> $W/runs/torus3162-$v.err
}
run serial-default 0 --algo serial &
run serial-paper 1 --algo serial --fi --local-search off --no-partition-mixing &
( run cpu-default 16-31 --algo parallel --backend cpu
  run cpu-paper 16-31 --algo parallel --backend cpu --no-fi --local-search off --no-partition-mixing ) &
g() { # gpu cores graph target name options...
  local gpu=$1 c=$2 G=$3 t=$4 n=$5; shift 5
  CUDA_VISIBLE_DEVICES=$gpu taskset -c $c $B/pgomea run --instance $R/.gpu/inst/$G.txt --algo parallel --backend cuda \
    --target $t --time-limit 60 --seed 1 --json $* > $W/gset/$G-$n.json 2> $W/gset/$G-$n.err
}
for G in G23:13344:0:2-8 G35:7687:1:9-15; do
  IFS=: read -r name t gpu c <<< "$G"
  ( g $gpu $c $name $t default
    g $gpu $c $name $t nbase64 --n-base 64
    g $gpu $c $name $t cims8 --c-ims 8
    g $gpu $c $name $t share90 --anneal-share 0.9 ) &
done
wait
date -u >> $W/gpus.txt
python3 - $W <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/*/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1], d['best_fitness'], d['target'], d['reached_target'], round(d['time_s'],2), round(d['setup_s'],2), d['generations'], d['populations'], d['partition_mixes'], d.get('peak_host_memory_bytes'))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callT4.tgz -C /tmp tori4
cat $W/gpus.txt
