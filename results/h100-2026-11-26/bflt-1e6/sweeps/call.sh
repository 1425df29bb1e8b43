#!/usr/bin/env bash
# The annealing of the first population on the 10^6-vertex random graph under the bounded-tree
# default: 3000 and 1000 sweeps (the default there is 300, growth 1), 10 s and 30 s, seed 1.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/c10 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c10/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/g/r1e6.txt > /dev/null
r() { # name seconds seed extra...
  local name=$1 t=$2 s=$3; shift 3
  timeout $((t + 60)) $P run --instance /tmp/g/r1e6.txt --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c10/trace-$name-$t-s$s.csv "$@" 2> $OUT/c10/run-$name-$t-s$s.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c10/run-$name-$t-s$s.json
  python3 -c "import json; d=json.load(open('$OUT/c10/run-$name-$t-s$s.json')); c=d['config']; print('$name $t s seed $s', d['best_fitness'], round(d['setup_s'],2), d['populations'], d['generations'], c['linkage'], bool(c.get('linkage_chosen')))"
}
for sw in 3000 1000; do r sweeps$sw 10 1 --anneal-sweeps $sw; r sweeps$sw 30 1 --anneal-sweeps $sw; done
date -u +"end %F %T UTC" >> $OUT/c10/host.txt
cd $OUT && tar czf c10.tgz c10 && rm -rf c10
