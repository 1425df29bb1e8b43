#!/usr/bin/env bash
# Block crews from the grid's last block (base = b0f5674, new = the working tree): GPU tests and
# self-test of new; s/generation base against new (default way and forced cooperative); equality at
# fixed seeds; memcheck; a 10^6-vertex torus run for its final solution.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/a /tmp/inst; T0=$(date +%s)
el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/a/gpu.txt; date -u >> $OUT/a/gpu.txt; nproc >> $OUT/a/gpu.txt
for v in base new; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
P=$B/pgomea-new
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null 2>&1
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1
src() { case $1 in G*) echo "--set C --name $1";; *) echo "--instance /tmp/inst/$1.$( [ $1 = nk -o $1 = trap ] && echo nk || ([ $1 = sat ] && echo cnf || echo txt))";; esac; }
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs [$(el) s]"; timeout 200 $B/gpu-test-new --test-threads=1 > $OUT/a/gpu-test.log 2>&1; grep -E "test result|FAIL|panick" $OUT/a/gpu-test.log | head -5
echo "== selftest [$(el) s]"; timeout 150 $P selftest > $OUT/a/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/a/selftest.log | tail -3
echo "== bench: s/generation, base then new [$(el) s]"
for spec in "G81 16,32,64,256" "G1 16,64" "G55 16,64" "t100 16,256" "trap 16,256" "sat 16"; do set -- $spec; g=$1; pops=$2
  for mode in default cooperative; do for v in base new; do
    [ $(el) -gt 420 ] && break 3
    if [ $mode = cooperative ]; then export PGOMEA_CUDA_GENERATION=cooperative; else unset PGOMEA_CUDA_GENERATION; fi
    timeout 60 $B/pgomea-$v bench throughput $(src $g) --backend cuda --population $pops --generations 5 > $OUT/a/b-$g-$mode-$v.txt 2>&1
    echo "$g $mode $v: $(grep -E '\| parallel \|' $OUT/a/b-$g-$mode-$v.txt | awk -F'|' '{printf "n=%s %s %s [%s] | ", $5, $8, $9, $4}' | sed 's/NVIDIA H[0-9]* [0-9A-Za-z ]*; //g')"
  done; done
done
unset PGOMEA_CUDA_GENERATION
echo "== fixed seed: base against new [$(el) s]"
for g in G1 G81 t100 nk trap sat; do for mode in cooperative graph; do for extra in "--local-search off" ""; do
  [ $(el) -gt 480 ] && break 3
  [ "$mode" = graph -a -z "$extra" ] && continue
  tag=$g-$mode${extra:+-off}
  for v in base new; do
    PGOMEA_CUDA_GENERATION=$mode timeout 25 $B/pgomea-$v run $(src $g) --algo parallel --backend cuda $extra --max-evals 200000 --seed 2 --json > $OUT/a/fix-$tag-$v.json 2>$OUT/a/fix-$tag-$v.err
  done
  python3 - $OUT/a/fix-$tag-base.json $OUT/a/fix-$tag-new.json "$tag" <<'PY'
import json,sys
try:
    a,b=[json.load(open(f)) for f in sys.argv[1:3]]
    k=lambda r:(r['best_fitness'],r['evaluations'],r['generations'],r['solution'])
    print(sys.argv[3], "equal" if k(a)==k(b) else "DIFFER", k(a)[:3], k(b)[:3], a['stop_reason'], round(a['time_s'],2), round(b['time_s'],2))
except Exception as e: print(sys.argv[3], "ERROR", e)
PY
done; done; done
echo "== memcheck [$(el) s]"
PGOMEA_CUDA_GENERATION=cooperative timeout 45 compute-sanitizer --tool memcheck $P run --set C --name G1 --algo parallel --backend cuda --local-search off --max-evals 100000 > $OUT/a/cs-memcheck-G1.log 2>&1
echo "memcheck G1 cooperative: $(grep -E 'ERROR SUMMARY' $OUT/a/cs-memcheck-G1.log | tail -1)"
echo "== 10^6 torus, 30 s [$(el) s]"
if [ $(el) -lt 520 ]; then
  $P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
  timeout 45 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --json --trace $OUT/a/t1000-trace.csv > /tmp/t1000.json 2>$OUT/a/t1000.err
  python3 -c "import json; r=json.load(open('/tmp/t1000.json')); print(r['best_fitness'], r['best_known'], r['generations'], r['populations'], round(r['setup_s'],2))"
  gzip -c /tmp/t1000.json > $OUT/t1000.json.gz
fi
cd $OUT && for f in a/*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf a.tgz a && rm -rf a
echo "done [$(el) s]"
