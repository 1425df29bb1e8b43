#!/usr/bin/env bash
# Issue 17 item 5: sparse random graphs with near-continuous symmetric weights (n = 10^4, degree
# 4 and 6) at 10 s, 2 seeds: default, descent (--anneal-sweeps 0), unannealed (--local-search
# off); the 2D Gaussian glass of side 200 with the descent at 10 s (3 seeds) and of side 100 at
# 60 s (seed 1); then tests/gpu.rs and the self-test of this build.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-head
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c5/runs /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c5/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate random --n 10000 --m 20000 --min-weight -1000000 --max-weight 1000000 --seed 1 -o /tmp/g/rand-d4.txt
$P generate random --n 10000 --m 30000 --min-weight -1000000 --max-weight 1000000 --seed 1 -o /tmp/g/rand-d6.txt
$P generate torus --dims 2 --side 100 --weights gaussian --seed 1 -o /tmp/g/sg2d-gaussian-L100.txt
$P generate torus --dims 2 --side 200 --weights gaussian --seed 1 -o /tmp/g/sg2d-gaussian-L200.txt
r() { # name file seconds seed extra...
    local name=$1 f=$2 t=$3 s=$4; shift 4
    timeout $((t + 30)) $P run --instance $f --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c5/runs/$name-s$s.trace.csv "$@" \
      | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c5/runs/$name-s$s.json 2> $OUT/c5/runs/$name-s$s.err
    python3 -c "import json; d=json.load(open('$OUT/c5/runs/$name-s$s.json')); print('$name seed $s', d.get('best_fitness'), d.get('populations'), d.get('config',{}).get('annealing_chosen'))"
}
for d in d4 d6; do for s in 1 2; do
    r rand-$d-default /tmp/g/rand-$d.txt 10 $s
    r rand-$d-descent /tmp/g/rand-$d.txt 10 $s --anneal-sweeps 0
    r rand-$d-unannealed /tmp/g/rand-$d.txt 10 $s --local-search off
done; done
for s in 1 2 3; do r sg2d-g200-descent /tmp/g/sg2d-gaussian-L200.txt 10 $s --anneal-sweeps 0; done
r sg2d-g100-60s-descent /tmp/g/sg2d-gaussian-L100.txt 60 1 --anneal-sweeps 0
date -u +"tests %F %T UTC" >> $OUT/c5/host.txt
mkdir -p target/release && cp $P target/release/pgomea
timeout 150 $B/gpu-test --test-threads 1 > $OUT/c5/gpu-test.log 2>&1; echo "gpu tests exit $?"; tail -3 $OUT/c5/gpu-test.log
timeout 150 $P selftest > $OUT/c5/selftest.log 2>&1; echo "selftest exit $?"; tail -3 $OUT/c5/selftest.log
date -u +"end %F %T UTC" >> $OUT/c5/host.txt
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
