#!/usr/bin/env bash
# The final build: GPU tests, self-test, sanitizer; the new default on the tori of 10^6 (30 s) and 10^7 (120 s).
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/e /tmp/inst; T0=$(date +%s)
el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/e/gpu.txt; date -u >> $OUT/e/gpu.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs [$(el) s]"; timeout 200 $B/gpu-test-final --test-threads=1 > $OUT/e/gpu-test.log 2>&1; grep -E "test result|FAIL|panick" $OUT/e/gpu-test.log | head -5
echo "== selftest [$(el) s]"; timeout 150 $P selftest > $OUT/e/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/e/selftest.log | tail -3
echo "== synccheck G81 cooperative [$(el) s]"
PGOMEA_CUDA_GENERATION=cooperative timeout 40 compute-sanitizer --tool synccheck $P run --set C --name G81 --algo parallel --backend cuda --local-search off --max-evals 20000 > $OUT/e/cs-synccheck-G81.log 2>&1
echo "synccheck: $(grep -E 'ERROR SUMMARY' $OUT/e/cs-synccheck-G81.log | tail -1)"
one() { # tag instance limit extra...
  tag=$1; inst=$2; lim=$3; shift 3
  timeout $(( lim + 60 )) $P run --instance /tmp/inst/$inst.txt --algo parallel --backend cuda --time-limit $lim --target best-known --json "$@" --trace $OUT/e/$tag.csv > /tmp/$tag.json 2>$OUT/e/$tag.err
  python3 -c "import json; r=json.load(open('/tmp/$tag.json')); c=r['config']; print('$tag', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],3), r['reached_target'], r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2), c.get('anneal_sweeps'), c.get('anneal_growth'), c.get('annealing_chosen'))"
  python3 -c "import json; r=json.load(open('/tmp/$tag.json')); r.pop('solution',None); json.dump(r,open('$OUT/e/$tag.json','w'))"
}
echo "== default, 10^6 torus, 30 s [$(el) s]"
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
one t6-default-1 t1000 30
echo "== default, 10^7 torus, 120 s [$(el) s]"
$P generate torus --side 3162 --seed 1 -o /tmp/inst/t3162.txt > /dev/null 2>&1
one t7-default-2 t3162 120 --seed 2
[ $(el) -lt 420 ] && one t7-default-3 t3162 120 --seed 3
cd $OUT && tar czf e.tgz e && rm -rf e
echo "done [$(el) s]"
