#!/bin/bash
# Full tree against the bounded tree (bflt:64) at 10^6 variables on kinds other than pairwise.
set -u
B=$PWD/target/release/pgomea
W=/tmp/kinds; mkdir -p $W; cd $W
D=$OUT/kinds; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $D/gpu.txt
date -u > $D/start.txt
$B generate sat --n 1000000 --m 4260000 --seed 1 -o sat.cnf > /dev/null
$B generate nk --n 1000000 --k 5 --neighbourhood random --seed 1 -o nkr.nk > /dev/null
$B generate nk --n 1000000 --k 5 --seed 1 -o nka.nk > /dev/null
$B generate trap --k 5 --blocks 200000 -o trap.nk > /dev/null
# warm-up: the driver compiles the PTX once (stderr kept: a fresh host's first run aborted once)
$B run --instance trap.nk --algo parallel --backend cuda --time-limit 1 > $D/warm.txt 2>&1; echo "warm rc $?"
run() { # name instance linkage limit [target]
  /usr/bin/time -f '%e s wall, %M KB peak' $B run --instance $2 --algo parallel --backend cuda --linkage $3 \
    --time-limit $4 ${5:+--target $5} --trace $D/$1.csv --json 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"),indent=1)
print(sys.argv[1].split("/")[-1], d["best_fitness"], d.get("best_known"), "setup", round(d["setup_s"],2), "t", round(d["time_s"],2), "gens", d["generations"], d["populations"], "colors", d["colors"])' $D/$1.json
  tail -1 $D/$1.err; }
for lk in flt bflt:64; do t=${lk/:/}
  run sat-$t sat.cnf $lk 60 best-known
  run nkr-$t nkr.nk $lk 30
  run nka-$t nka.nk $lk 30 best-known
  run trap-$t trap.nk $lk 30 best-known
done
date -u > $D/end.txt
cd $OUT && tar czf kinds.tgz kinds && rm -rf kinds
