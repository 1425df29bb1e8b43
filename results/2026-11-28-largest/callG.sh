#!/usr/bin/env bash
# Issue 17 item 4's ten largest G-set graphs (those of RESULTS.md sections 21 and 53) at 60 s with
# today's build (section 68's mixes spanning generations), seed 1, and G72 with seed 2 too; two
# H200s of one host, jobs two at a time (jobs.py: one GPU and 16 cores each, longest first).
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/largest; rm -rf $W; mkdir -p $W/j $W/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
J=/tmp/jobsG.txt; : > $J
for gt in G81:14060 G77:9940 G67:6950 G72:7008 G66:6364 G65:5562 G60:14188 G61:5796 G63:27047 G64:8751 G72:7008:2; do
  IFS=: read -r g t s <<< "$gt"; s=${s:-1}
  printf '%s\t61\t%s\n' "$g-s$s" "$B/pgomea run --instance $R/.gpu/inst/$g.txt --algo parallel --backend cuda --target $t --time-limit 60 --seed $s --json > $W/j/$g-s$s.json 2> $W/j/$g-s$s.err" >> $J
done
python3 .gpu/jobs.py $J 2 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
python3 - $W/j <<'PY'
import json,glob,sys
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    try:
        d=json.load(open(f)); d.pop('solution',None); json.dump(d,open(f,'w'))
        print(f.split('/')[-1][:-5], d['best_fitness'], d['target'], round(100*d['best_fitness']/d['target'],3), round(d['time_s'],2), d['generations'], d['populations'], d['partition_mixes'], round(d['partition_mixing_s'],2))
    except Exception as e: print(f,e)
PY
tar czf $OUT/callG.tgz -C /tmp largest
cat $W/gpus.txt $W/jobs.txt
