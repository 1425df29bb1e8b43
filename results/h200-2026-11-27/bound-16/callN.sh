#!/usr/bin/env bash
# Linkage models at the default 10 s on instances of 10^6 variables that get bflt:64 by default:
# bflt:64, bflt:16 and univariate, seeds 1 and 2; 3-SAT also at 30 s.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/n; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/sat.cnf 2>&1 | tail -1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/rnd.txt 2>&1 | tail -1
$P generate nk --n 1000000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk.nk 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name instance time linkage seed
  $P run --instance $2 --algo parallel --backend cuda --time-limit $3 --linkage $4 --seed $5 --json --trace $D/$1.trace.csv 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$1.json $1
}
for s in 1 2; do for i in sat rnd nk; do
  f=/tmp/$i.cnf; [ $i = rnd ] && f=/tmp/rnd.txt; [ $i = nk ] && f=/tmp/nk.nk
  for L in bflt:64 bflt:16 univariate; do one $i-${L/:/}-10s-s$s $f 10 $L $s; done
done; done
for L in bflt:64 univariate; do one sat-${L/:/}-30s-s1 /tmp/sat.cnf 30 $L 1; done
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf n.tgz n && rm -rf n
