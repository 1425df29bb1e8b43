#!/usr/bin/env bash
# univariate against the default bflt:16 on random NK (k = 5) of 10^5, 3x10^5 and 10^6 variables
# and on a sparse random graph of 3x10^5 (10 s, seeds 1-2).
set -u
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P
D=$OUT/u; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate nk --n 100000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk1.nk 2>&1 | tail -1
$P generate nk --n 300000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk3.nk 2>&1 | tail -1
$P generate nk --n 1000000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk6.nk 2>&1 | tail -1
$P generate random --n 300000 --m 675000 --seed 1 -o /tmp/rnd3.txt 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name instance seed [args]
  local n=$1 f=$2 s=$3; shift 3
  $P run --instance $f --algo parallel --backend cuda --seed $s --json --trace $D/$n.trace.csv "$@" 2> $D/$n.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "before %.2f setup %.2f" % (d.get("before_setup_s",0), d.get("setup_s",0)), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$n.json $n
}
for s in 1 2; do
  for i in nk1.nk nk3.nk nk6.nk rnd3.txt; do for L in univariate bflt:16; do one ${i%%.*}-${L/:/}-s$s /tmp/$i $s --time-limit 10 --linkage $L; done; done
done 2>&1 | tee $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf u.tgz u && rm -rf u
