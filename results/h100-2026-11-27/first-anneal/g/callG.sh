#!/usr/bin/env bash
# The session's build: tests/gpu.rs, the self-test; 3-SAT 10^6 before/after the parallel
# initial evaluation; a first annealing too long for the limit (random graph 10^6, 3000 sweeps,
# 10 s) before/after the refit; G33 at 60 s.
set -u
REPO=$PWD; P=$PWD/target/release/pgomea; B=$PWD/.gpu/bin/pgomea-base; chmod +x $P $B $REPO/.gpu/bin/*
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea; }
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/g; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
(cd /tmp && $REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu tests rc $?"); grep -E 'test result|FAILED|panicked|SKIPPED' $D/gpu-tests.txt | head
$P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -2 $D/selftest.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf > $D/gen.txt 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/r1e6.txt >> $D/gen.txt 2>&1
one() { # name binary args...
  local name=$1 bin=$2; shift 2
  $bin run "$@" --json --trace $D/$name.trace.csv 2> $D/$name.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], "best", d["best_fitness"], "setup", round(d.get("setup_s",-1),2), "gens", d.get("generations"), "pops", d.get("populations"), "t", round(d["time_s"],2))' $D/$name.json $name
  grep -h 'note' $D/$name.err | head -3
}
for r in a b; do
  one sat15-base-$r $B --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit 15
  one sat15-new-$r $P --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit 15
done
one sat10-new $P --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit 10
for r in a b; do
  one r3000-base-$r $B --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10 --anneal-sweeps 3000
  one r3000-new-$r $P --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10 --anneal-sweeps 3000
done
one r-default-new $P --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10
one G33-60s $P --set G --name G33 --algo parallel --backend cuda --time-limit 60 --target best-known --seed 1
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf g.tgz g && rm -rf g
