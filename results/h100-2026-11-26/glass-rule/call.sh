#!/usr/bin/env bash
# The default with the 2D-glass rule: 2D Gaussian glasses of side 100 and 200 at 10 s (3 seeds;
# the rule takes the descent alone), the 2D +-1 glass of side 100 and G1 (the rule does not fire:
# annealed as before), then the self-test.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-new
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c7/runs /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c7/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
for w in gaussian pm1; do for L in 100 200; do $P generate torus --dims 2 --side $L --weights $w --seed 1 -o /tmp/g/sg2d-$w-L$L.txt > /dev/null; done; done
r() { # name file seconds seed extra...
    local name=$1 f=$2 t=$3 s=$4; shift 4
    timeout $((t + 30)) $P run --instance $f --algo parallel --backend cuda --time-limit $t --seed $s --json --quiet --trace $OUT/c7/runs/$name-s$s.trace.csv "$@" \
      | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); print(json.dumps(d))" > $OUT/c7/runs/$name-s$s.json 2> $OUT/c7/runs/$name-s$s.err
    python3 -c "import json; d=json.load(open('$OUT/c7/runs/$name-s$s.json')); print('$name seed $s', d.get('best_fitness'), d.get('populations')[-1], d.get('config',{}).get('annealing_chosen'))"
}
for s in 1 2 3; do
    r sg2d-gaussian-L100 /tmp/g/sg2d-gaussian-L100.txt 10 $s
    r sg2d-gaussian-L200 /tmp/g/sg2d-gaussian-L200.txt 10 $s
done
r sg2d-pm1-L100 /tmp/g/sg2d-pm1-L100.txt 10 1
r G1 $PGOMEA_INSTANCES/gset/G1.txt 5 1
timeout 150 $P selftest > $OUT/c7/selftest.log 2>&1; echo "selftest exit $?"; tail -2 $OUT/c7/selftest.log
date -u +"end %F %T UTC" >> $OUT/c7/host.txt
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
