#!/usr/bin/env bash
# More annealing for sparse random graphs beyond 10^5 variables? The 10^6-vertex graph, seed 2,
# 1000 sweeps at 10 s and 30 s (the default's 300 gave 5786695 at 10 s), and the 10^7-vertex graph
# with 300 sweeps at 120 s (the default's 100 gave 57549926, RESULTS 41), under the bounded tree.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/c11 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c11/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/g/r1e6.txt > /dev/null
$P generate random --n 10000000 --m 22500000 --seed 1 -o /tmp/g/r1e7.txt > /dev/null
r() { # name file seconds seed extra...
  local name=$1 f=$2 t=$3 s=$4; shift 4
  timeout $((t + 60)) $P run --instance $f --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c11/trace-$name-$t-s$s.csv "$@" 2> $OUT/c11/run-$name-$t-s$s.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c11/run-$name-$t-s$s.json
  python3 -c "import json; d=json.load(open('$OUT/c11/run-$name-$t-s$s.json')); c=d['config']; print('$name $t s seed $s', d['best_fitness'], round(d['setup_s'],2), d['populations'], d['generations'], c['linkage'], c['anneal_sweeps'], c['anneal_growth'])"
}
r r1e6-sweeps1000 /tmp/g/r1e6.txt 10 2 --anneal-sweeps 1000
r r1e6-sweeps1000 /tmp/g/r1e6.txt 30 2 --anneal-sweeps 1000
r r1e6-default /tmp/g/r1e6.txt 30 2
r r1e7-sweeps300 /tmp/g/r1e7.txt 120 1 --anneal-sweeps 300
date -u +"end %F %T UTC" >> $OUT/c11/host.txt
cd $OUT && tar czf c11.tgz c11 && rm -rf c11
