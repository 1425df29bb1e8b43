#!/usr/bin/env bash
# The new default bound (bflt:16): traps of 10^6 variables to the optimum against bflt:64, and the
# default run of 3-SAT 10^6 at 10 s (what it chose); the README's main command.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/p; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P generate trap --k 5 --blocks 200000 -o /tmp/trap.nk 2>&1 | tail -1
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/sat.cnf 2>&1 | tail -1
$P run 2>&1 | tail -4 | tee $D/readme-run.txt
one() { # name instance args...
  $P run --instance $2 --algo parallel --backend cuda "${@:3}" --json --trace $D/$1.trace.csv 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"), d.get("stop_reason"))' $D/$1.json $1
}
one trap-default-30s /tmp/trap.nk --time-limit 30 --target best-known
one trap-bflt64-30s /tmp/trap.nk --time-limit 30 --target best-known --linkage bflt:64
one sat-default-10s /tmp/sat.cnf
grep -i "linkage" $D/sat-default-10s.err | head -2
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf p.tgz p && rm -rf p
