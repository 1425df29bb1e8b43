#!/usr/bin/env bash
# GPU tests and self-test of new (block crews from the grid's last block); n = 16 cooperative:
# base, new, rot (warps also rotated to the grid's middle); the 10^6 torus at 30 s: annealing variants.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/c /tmp/inst; T0=$(date +%s)
el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/c/gpu.txt; date -u >> $OUT/c/gpu.txt
for v in base new rot; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
P=$B/pgomea-new
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null 2>&1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
src() { case $1 in G*) echo "--set C --name $1";; *) echo "--instance /tmp/inst/$1.$( [ $1 = nk -o $1 = trap ] && echo nk || ([ $1 = sat ] && echo cnf || echo txt))";; esac; }
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs [$(el) s]"; timeout 200 $B/gpu-test-new --test-threads=1 > $OUT/c/gpu-test.log 2>&1; grep -E "test result|FAIL|panick" $OUT/c/gpu-test.log | head -5
echo "== selftest [$(el) s]"; timeout 150 $P selftest > $OUT/c/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/c/selftest.log | tail -3
echo "== bench cooperative, n = 16 (32) [$(el) s]"
export PGOMEA_CUDA_GENERATION=cooperative
for spec in "G81 16,32" "G1 16" "G55 16" "t100 16" "sat 16"; do set -- $spec; g=$1; pops=$2
  for round in 1 2; do for v in base new rot; do
    timeout 60 $B/pgomea-$v bench throughput $(src $g) --backend cuda --population $pops --generations 10 > $OUT/c/b-$g-$v-$round.txt 2>&1
    echo "$g $v $round: $(grep -E '\| parallel \|' $OUT/c/b-$g-$v-$round.txt | awk -F'|' '{printf "n=%s %s %s | ", $5, $8, $9}')"
  done; done
done
unset PGOMEA_CUDA_GENERATION
echo "== 10^6 torus, 30 s [$(el) s]"
for spec in "g1:--anneal-growth 1" "g1s1000:--anneal-growth 1 --anneal-sweeps 1000" "fi:--fi" "g1s100:--anneal-growth 1 --anneal-sweeps 100"; do
  tag=${spec%%:*}; extra=${spec#*:}
  [ $(el) -gt 520 ] && break
  timeout 45 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --json $extra --trace $OUT/c/t1000-$tag.csv > /tmp/t1000-$tag.json 2>$OUT/c/t1000-$tag.err
  python3 -c "import json; r=json.load(open('/tmp/t1000-$tag.json')); print('$tag', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],3), r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2))"
  python3 -c "import json; r=json.load(open('/tmp/t1000-$tag.json')); r.pop('solution',None); json.dump(r,open('$OUT/c/t1000-$tag.json','w'))"
done
cd $OUT && tar czf c.tgz c && rm -rf c
echo "done [$(el) s]"
