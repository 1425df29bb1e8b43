#!/bin/bash
set -u
REPO=$PWD; NEW=$PWD/target/release/pgomea
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $NEW /work/main/target/release/pgomea; }
D=$OUT/final; mkdir -p $D; cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $D/gpu.txt; date -u > $D/start.txt
$REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu tests rc $?"; grep -E 'test result|FAILED|panicked' $D/gpu-tests.txt
$NEW generate sat --n 1000000 --m 4260000 --seed 1 -o sat.cnf > /dev/null
for lim in 10 20; do
$NEW run --instance sat.cnf --algo parallel --backend cuda --time-limit $lim --target best-known --json 2>$D/sat-$lim.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"),indent=1)
print("sat default", sys.argv[2], "s:", d["linkage"], d["best_fitness"], "backend", d["backend"], "setup", round(d["setup_s"],2), "gens", d["generations"])' $D/sat-$lim.json $lim
done
date -u > $D/end.txt
cd $OUT && tar czf final.tgz final && rm -rf final
