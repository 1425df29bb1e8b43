#!/usr/bin/env bash
# Converged linkage sets: head build (h57) against the new one (conv): time to the optimum of traps, s/generation, equality at fixed seeds.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/b /tmp/inst; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/b/gpu.txt; date -u >> $OUT/b/gpu.txt
P=$B/pgomea-conv
for v in h57 conv; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1
$P generate trap --k 5 --blocks 20000 --shuffle --seed 1 -o /tmp/inst/trap100k.nk > /dev/null 2>&1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1
src() { case $1 in G*) echo "--set C --name $1";; t100) echo "--instance /tmp/inst/t100.txt";; nk) echo "--instance /tmp/inst/nk.nk";; trap) echo "--instance /tmp/inst/trap.nk";; trap100k) echo "--instance /tmp/inst/trap100k.nk";; sat) echo "--instance /tmp/inst/sat.cnf";; esac; }
echo "== traps to the optimum (GPU)"
for spec in "trap off 1 60" "trap off 2 60" "trap on 1 60" "trap on 2 60" "trap100k off 1 30"; do set -- $spec; for v in h57 conv; do
  g=$1; extra=""; [ $2 = off ] && extra="--local-search off"
  tag=ttt-$g-$2-$3-$v
  timeout $(( $4 + 10 )) $B/pgomea-$v run $(src $g) --algo parallel --backend cuda $extra --target best-known --time-limit $4 --seed $3 --json > $OUT/b/$tag.json 2>$OUT/b/$tag.err
  python3 -c "import json; r=json.load(open('$OUT/b/$tag.json')); print('$tag', r['best_fitness'], r['reached_target'], round(r['time_s'],3), r['evaluations'], r['generations'], round(r['setup_s'],2))" 2>&1 | tail -1
done; done
echo "== bench throughput: s/generation (default way)  [$(( $(date +%s)-T0 )) s]"
for v in h57 conv; do for g in trap G81 G1 t100 nk sat; do
  pops=16,256; [ $g = G81 ] && pops=16,256,1024
  timeout 100 $B/pgomea-$v bench throughput $(src $g) --backend cuda --population $pops --generations 5 > $OUT/b/b-$g-$v.txt 2>&1
  echo "$v $g $(grep -E '\| parallel \|' $OUT/b/b-$g-$v.txt | awk -F'|' '{printf "n=%s %s [%s] | ", $5, $8, $4}' | sed 's/NVIDIA H100 80GB HBM3; //g')"
done; done
echo "== fixed seed: h57 against conv  [$(( $(date +%s)-T0 )) s]"
for g in G1 G81 t100 nk trap sat; do for mode in cooperative by-solution; do for extra in "--local-search off" ""; do
  [ $(( $(date +%s)-T0 )) -gt 520 ] && break 3
  tag=$g-$mode${extra:+-off}
  for v in h57 conv; do
    PGOMEA_CUDA_GENERATION=$mode timeout 25 $B/pgomea-$v run $(src $g) --algo parallel --backend cuda $extra --max-evals 200000 --seed 2 --json > $OUT/b/fix-$tag-$v.json 2>$OUT/b/fix-$tag-$v.err
  done
  python3 - $OUT/b/fix-$tag-h57.json $OUT/b/fix-$tag-conv.json "$tag" <<'PY'
import json,sys
try:
    a,b=[json.load(open(f)) for f in sys.argv[1:3]]
    k=lambda r:(r['best_fitness'],r['evaluations'],r['generations'],r['solution'])
    print(sys.argv[3], "equal" if k(a)==k(b) else "DIFFER", k(a)[:3], k(b)[:3], a['stop_reason'], round(a['time_s'],2), round(b['time_s'],2))
except Exception as e: print(sys.argv[3], "ERROR", e)
PY
done; done; done
cd $OUT && for f in b/*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf b.tgz b && rm -rf b
