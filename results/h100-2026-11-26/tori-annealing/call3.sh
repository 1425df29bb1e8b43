#!/usr/bin/env bash
# Tori of 10^6 and 10^7 vertices: annealing variants (sweeps, growth 1), seeds 1-2; one longer run.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-rot
mkdir -p $OUT/d /tmp/inst; T0=$(date +%s)
el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/d/gpu.txt; date -u >> $OUT/d/gpu.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
one() { # tag instance limit extra...
  tag=$1; inst=$2; lim=$3; shift 3
  timeout $(( lim + 60 )) $P run --instance /tmp/inst/$inst.txt --algo parallel --backend cuda --time-limit $lim --target best-known --json "$@" --trace $OUT/d/$tag.csv > /tmp/$tag.json 2>$OUT/d/$tag.err
  python3 -c "import json; r=json.load(open('/tmp/$tag.json')); print('$tag', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],3), r['reached_target'], r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2), r['config'].get('anneal_sweeps'), r['config'].get('anneal_growth'))"
  python3 -c "import json; r=json.load(open('/tmp/$tag.json')); r.pop('solution',None); json.dump(r,open('$OUT/d/$tag.json','w'))"
}
echo "== 10^6, 30 s [$(el) s]"
one t6-s30-g1-1 t1000 30 --anneal-sweeps 30 --anneal-growth 1
one t6-s0-g1-1 t1000 30 --anneal-sweeps 0 --anneal-growth 1
one t6-s100-g1-2 t1000 30 --anneal-sweeps 100 --anneal-growth 1 --seed 2
one t6-s300-g1-2 t1000 30 --anneal-sweeps 300 --anneal-growth 1 --seed 2
one t6-default-2 t1000 30 --seed 2
echo "== 10^6, 90 s, 100 sweeps, growth 1 [$(el) s]"
one t6-s100-g1-1-90 t1000 90 --anneal-sweeps 100 --anneal-growth 1
echo "== 10^7, 120 s, 100 sweeps, growth 1 [$(el) s]"
if [ $(el) -lt 400 ]; then
  $P generate torus --side 3162 --seed 1 -o /tmp/inst/t3162.txt > /dev/null 2>&1
  one t7-s100-g1-1 t3162 120 --anneal-sweeps 100 --anneal-growth 1
fi
cd $OUT && tar czf d.tgz d && rm -rf d
echo "done [$(el) s]"
