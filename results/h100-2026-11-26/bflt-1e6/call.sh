#!/usr/bin/env bash
# The bounded-tree default on a 10^6-vertex sparse random graph (mean degree 4.5): the default
# (bflt:64, chosen) against --linkage flt, 10 s (the default limit) and 30 s, seeds 1 and 2 at 10 s.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/c9 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c9/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/g/r1e6.txt > /dev/null
r() { # name seconds seed extra...
  local name=$1 t=$2 s=$3; shift 3
  timeout $((t + 60)) $P run --instance /tmp/g/r1e6.txt --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c9/trace-$name-$t-s$s.csv "$@" 2> $OUT/c9/run-$name-$t-s$s.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c9/run-$name-$t-s$s.json
  python3 -c "import json; d=json.load(open('$OUT/c9/run-$name-$t-s$s.json')); c=d['config']; print('$name $t s seed $s', d['best_fitness'], round(d['setup_s'],2), d['populations'], d['generations'], c['linkage'], bool(c.get('linkage_chosen')))"
}
for s in 1 2; do r default 10 $s; r flt 10 $s --linkage flt; done
r default 30 1; r flt 30 1 --linkage flt
date -u +"end %F %T UTC" >> $OUT/c9/host.txt
cd $OUT && tar czf c9.tgz c9 && rm -rf c9
