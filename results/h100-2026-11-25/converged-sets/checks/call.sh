#!/usr/bin/env bash
# Converged linkage sets: GPU tests, self-test, sanitizers on the new build; equality with the head build at fixed seeds.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/a /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/a/gpu.txt; date -u >> $OUT/a/gpu.txt
P=$B/pgomea-conv
for v in h57 conv; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1
src() { case $1 in G*) echo "--set C --name $1";; t100) echo "--instance /tmp/inst/t100.txt";; nk) echo "--instance /tmp/inst/nk.nk";; trap) echo "--instance /tmp/inst/trap.nk";; sat) echo "--instance /tmp/inst/sat.cnf";; esac; }
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs"; t0=$(date +%s); timeout 200 $B/gpu-test-conv --test-threads=1 > $OUT/a/gpu-test.log 2>&1; grep -E "test result" $OUT/a/gpu-test.log; echo "($(( $(date +%s)-t0 )) s)"
echo "== selftest"; t0=$(date +%s); timeout 200 $P selftest > $OUT/a/selftest.log 2>&1; echo "exit $? ($(( $(date +%s)-t0 )) s)"; grep -E "FAIL|passed|every kernel" $OUT/a/selftest.log | tail -3
for inst in trap G1; do
  timeout 60 compute-sanitizer --tool memcheck $P run $(src $inst) --algo parallel --backend cuda --local-search off --max-evals 100000 > $OUT/a/cs-memcheck-$inst.log 2>&1
  echo "memcheck $inst: $(grep -E 'ERROR SUMMARY' $OUT/a/cs-memcheck-$inst.log | tail -1)"
done
cd $OUT && for f in a/fix-*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf a.tgz a && rm -rf a
