#!/usr/bin/env bash
# The committed default (bounded tree, 949 sweeps) on the 10^6-vertex random graph: 10 s seeds 1
# and 2, 30 s seed 1.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/c12 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c12/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/g/r1e6.txt > /dev/null
r() { # name file seconds seed extra...
  local name=$1 f=$2 t=$3 s=$4; shift 4
  timeout $((t + 60)) $P run --instance $f --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c12/trace-$name-$t-s$s.csv "$@" 2> $OUT/c12/run-$name-$t-s$s.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c12/run-$name-$t-s$s.json
  python3 -c "import json; d=json.load(open('$OUT/c12/run-$name-$t-s$s.json')); c=d['config']; print('$name $t s seed $s', d['best_fitness'], round(d['setup_s'],2), d['populations'], d['generations'], c['linkage'], c['anneal_sweeps'], c['anneal_growth'])"
}
for s in 1 2; do r r1e6-newdefault /tmp/g/r1e6.txt 10 $s; done
r r1e6-newdefault /tmp/g/r1e6.txt 30 1
date -u +"end %F %T UTC" >> $OUT/c12/host.txt
cd $OUT && tar czf c12.tgz c12 && rm -rf c12
