#!/usr/bin/env bash
# 10^7 vertices with the bounded tree (--linkage bflt:64) under the default annealing beyond 10^5
# variables (section 35: 100 sweeps from 3 x 10^6 on, growth 1): a sparse random graph (mean degree
# 4.5, as section 24) and the torus of section 26 (optimum 59985545; the full tree reached
# 99.79-99.80 % at 120 s in section 35), 120 s, seed 1.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
mkdir -p $OUT/c8 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c8/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 10000000 --m 22500000 --seed 1 -o /tmp/g/r1e7.txt > /dev/null
$P generate torus --side 3162 --seed 1 -o /tmp/g/t3162.txt > /dev/null
r() { # name file [extra]
  date -u +"$1 %F %T UTC" >> $OUT/c8/host.txt
  /usr/bin/time -v timeout 200 $P run --instance $2 --algo parallel --backend cuda --linkage bflt:64 --time-limit 120 --seed 1 ${3:-} --json --trace $OUT/c8/trace-$1.csv 2> $OUT/c8/run-$1.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c8/run-$1.json
  python3 -c "import json; d=json.load(open('$OUT/c8/run-$1.json')); c=d['config']; print('$1', d['best_fitness'], d['setup_s'], d['populations'], d['generations'], d.get('peak_device_memory_bytes'), d.get('peak_host_memory_bytes'), c.get('annealing_chosen'), c.get('anneal_sweeps'), c.get('anneal_growth'))"
  grep -E 'Maximum resident|Elapsed' $OUT/c8/run-$1.err
}
r random1e7 /tmp/g/r1e7.txt
r torus1e7 /tmp/g/t3162.txt "--target best-known"
date -u +"end %F %T UTC" >> $OUT/c8/host.txt
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
