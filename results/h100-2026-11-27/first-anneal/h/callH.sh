#!/usr/bin/env bash
# The adaptive first annealing (SearchPlan::refit after every call) against the build before
# (3d94596); 3-SAT 10^6 at 20 s before/after the parallel initial evaluation; tests/gpu.rs and
# the self-test on this build.
set -u
REPO=$PWD; P=$PWD/target/release/pgomea; B=$PWD/.gpu/bin/pgomea-base; chmod +x $P $B $REPO/.gpu/bin/*
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea; }
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/h; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf > $D/gen.txt 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/r1e6.txt >> $D/gen.txt 2>&1
$P generate torus --side 1000 -o /tmp/t1000.txt >> $D/gen.txt 2>&1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name binary args...
  local name=$1 bin=$2; shift 2
  $bin run "$@" --json --trace $D/$name.trace.csv 2> $D/$name.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], "best", d["best_fitness"], "setup", round(d.get("setup_s",-1),2), "gens", d.get("generations"), "pops", d.get("populations"), "t", round(d["time_s"],2))' $D/$name.json $name
  grep -h 'note' $D/$name.err | head -3
}
for r in a b; do
  one sat20-base-$r $B --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit 20
  one sat20-new-$r $P --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit 20
done
for s in 1 2; do
  one r-base-s$s $B --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10 --seed $s
  one r-new-s$s $P --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10 --seed $s
done
one r3000-new $P --instance /tmp/r1e6.txt --algo parallel --backend cuda --time-limit 10 --anneal-sweeps 3000
one G81-base $B --set C --name G81 --algo parallel --backend cuda --time-limit 10 --seed 1
one G81-new $P --set C --name G81 --algo parallel --backend cuda --time-limit 10 --seed 1
one t1000-base $B --instance /tmp/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known
one t1000-new $P --instance /tmp/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known
(cd /tmp && $REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu tests rc $?"); grep -E 'test result|FAILED|panicked|SKIPPED' $D/gpu-tests.txt | head
$P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -2 $D/selftest.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf h.tgz h && rm -rf h
