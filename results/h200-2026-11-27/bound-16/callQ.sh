#!/usr/bin/env bash
# Traps of 10^6 variables again after a warm-up: default (bflt:16), bflt:64, default.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/q; mkdir -p $D
date -u +"start %F %T UTC" > $D/host.txt
$P generate trap --k 5 --blocks 200000 -o /tmp/trap.nk 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name instance args...
  /usr/bin/time -f "wall %e s" $P run --instance $2 --algo parallel --backend cuda "${@:3}" --json --trace $D/$1.trace.csv 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"), d.get("stop_reason"))' $D/$1.json $1
  tail -1 $D/$1.err
}
one trap-default-a /tmp/trap.nk --time-limit 30 --target best-known
one trap-bflt64 /tmp/trap.nk --time-limit 30 --target best-known --linkage bflt:64
one trap-default-b /tmp/trap.nk --time-limit 30 --target best-known
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf q.tgz q && rm -rf q
