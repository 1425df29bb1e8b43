#!/usr/bin/env bash
# flt (the default below 10^6) against bflt:16 at 10 s on 10^5-variable non-lattices, seeds 1-2.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/r; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P generate sat --n 100000 --m 426000 --seed 1 -o /tmp/sat.cnf 2>&1 | tail -1
$P generate random --n 100000 --m 225000 --seed 1 -o /tmp/rnd.txt 2>&1 | tail -1
$P generate nk --n 100000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk.nk 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name instance linkage seed
  $P run --instance $2 --algo parallel --backend cuda --time-limit 10 --linkage $3 --seed $4 --json --trace $D/$1.trace.csv 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$1.json $1
}
for s in 1 2; do for i in sat rnd nk; do
  f=/tmp/$i.cnf; [ $i = rnd ] && f=/tmp/rnd.txt; [ $i = nk ] && f=/tmp/nk.nk
  for L in flt bflt:16; do one $i-${L/:/}-s$s $f $L $s; done
done; done
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf r.tgz r && rm -rf r
