#!/usr/bin/env bash
# Below 10^5 variables: univariate against flt (the default there) on planted 3-SAT of 10^4 and
# 3x10^4 variables, to the optimum (limit 10 s), seeds 1-3.
set -u
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P
D=$OUT/x; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/s4.cnf 2>&1 | tail -1
$P generate sat --n 30000 --m 127800 --seed 1 -o /tmp/s34.cnf 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
for s in 1 2 3; do for i in s4 s34; do for L in flt univariate; do
  $P run --instance /tmp/$i.cnf --algo parallel --backend cuda --seed $s --time-limit 10 --target best-known --linkage $L --json 2> $D/$i-$L-s$s.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], d["reached_target"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"))' $D/$i-$L-s$s.json $i-$L-s$s
done; done; done 2>&1 | tee $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf x.tgz x && rm -rf x
