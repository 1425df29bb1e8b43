#!/usr/bin/env bash
P=/work/main/target/release/pgomea
cd /tmp/dv
for f in t2u100 t2g50 t3g20 r4; do for s in 1 2; do for v in default anneal; do
  extra=""; [ $v = anneal ] && extra="--anneal-sweeps 1000"
  r=$($P run --instance $f.txt --algo parallel --backend cpu --time-limit 10 --seed $s --json --quiet $extra | python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["config"]; print(d["best_fitness"], c["anneal_sweeps"], d["populations"][-1], d["generations"])')
  echo "$f seed $s $v $r"
done; done; done
