#!/usr/bin/env bash
# G63 and G67 at 60 s, seeds 1-3: today's build against section 66's (2aeadc6: before the pieces
# of section 67 and the mixes spanning generations of section 68), in the same call; two H200s of
# one host, jobs two at a time (jobs.py: one GPU and 16 cores each).
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/pairs; rm -rf $W; mkdir -p $W/j $W/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
J=/tmp/jobsH.txt; : > $J
for gt in G63:27047 G67:6950; do
  IFS=: read -r g t <<< "$gt"
  for s in 1 2 3; do for b in new base; do
    bin=$B/pgomea; [ $b = base ] && bin=$B/pgomea-66
    printf '%s\t61\t%s\n' "$g-$b-s$s" "$bin run --instance $R/.gpu/inst/$g.txt --algo parallel --backend cuda --target $t --time-limit 60 --seed $s --json > $W/j/$g-$b-s$s.json 2> $W/j/$g-$b-s$s.err" >> $J
  done; done
done
python3 .gpu/jobs.py $J 2 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
python3 - $W/j <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1][:-5], d['best_fitness'], d['target'], round(100*d['best_fitness']/d['target'],3), d['generations'], d['populations'], d['partition_mixes'], round(d['partition_mixing_s'],2))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callH.tgz -C /tmp pairs
cat $W/gpus.txt $W/jobs.txt
