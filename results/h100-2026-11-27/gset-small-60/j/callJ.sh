#!/usr/bin/env bash
# G-set graphs up to 3000 vertices short of the best known: G38, G39 at 60 s (seed 1, not rerun
# in section 53), and G23, G35, G36, G37, G40, G42 at 60 s with seed 2.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/j; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name seed
  $P run --set G --name $1 --algo parallel --backend cuda --time-limit 60 --target best-known --seed $2 --json --trace $D/$1-s$2.trace.csv 2> $D/$1-s$2.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], "best", d["best_fitness"], "of", d["best_known"], "t", round(d["time_s"],2), "gens", d.get("generations"))' $D/$1-s$2.json $1-s$2
}
one G38 1; one G39 1
for g in G23 G35 G36 G37 G40 G42; do one $g 2; done
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf j.tgz j && rm -rf j
