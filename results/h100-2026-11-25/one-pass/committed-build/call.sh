#!/usr/bin/env bash
# The committed build (one pass): GPU tests, selftest; end-to-end runs against the base build.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/h /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/h/gpu.txt; date -u >> $OUT/h/gpu.txt
P=$B/pgomea-head
for v in base head; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done  # PTX JIT warm-up
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs"; timeout 240 $B/gpu-test-head --test-threads=1 > $OUT/h/gpu-test.log 2>&1; grep -E "test result" $OUT/h/gpu-test.log
echo "== selftest"; timeout 240 $P selftest > $OUT/h/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/h/selftest.log | tail -3
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null
show() { python3 -c "import json,sys; r=json.load(open('$1')); print('$2', r['best_fitness'], round(r['evaluations']), r['generations'], r['populations'], round(r['time_s'],2), round(r.get('setup_s',0),2))" 2>&1 | tail -1; }
echo "== 10^6 torus, 30 s, default (best evals generations populations time setup)"
for v in base head; do
  timeout 60 $B/pgomea-$v run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed 1 --json > $OUT/h/t1000-$v.json 2>$OUT/h/t1000-$v.err
  show $OUT/h/t1000-$v.json "t1000 $v"
done
echo "== G81, 10 s, default"
for s in 1 2; do for v in base head; do
  timeout 40 $B/pgomea-$v run --set C --name G81 --algo parallel --backend cuda --time-limit 10 --seed $s --json > $OUT/h/G81-$v-$s.json 2>$OUT/h/G81-$v-$s.err
  show $OUT/h/G81-$v-$s.json "G81 seed $s $v"
done; done
cd $OUT && for f in h/*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf h.tgz h && rm -rf h
