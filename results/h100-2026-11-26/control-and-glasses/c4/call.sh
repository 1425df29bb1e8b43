#!/usr/bin/env bash
# Issue 17 item 5, the 2D Gaussian gap: default against unannealed (GOM alone) on Gaussian glasses
# in 2D (sides 100, 200) and 3D (sides 20, 30) at 10 s, 3 seeds; sparse random graphs with
# near-continuous symmetric weights (degree 4 and 6) at 10 s, 2 seeds; the 2D Gaussian glass of
# side 100 at 60 s, seed 1: unannealed and --anneal-growth 1 (the default's 60 s run: call 3).
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-head
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c4/runs /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c4/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
timeout 280 benchmarks/control.sh --bin $P --backend cuda --time 10 --seeds 3 --classes sg2d,sg3d --pick 2,4 --variants default,unannealed --out $OUT/c4/gauss > $OUT/c4/gauss.log 2>&1; echo "gauss exit $?"
date -u +"random %F %T UTC" >> $OUT/c4/host.txt
$P generate random --n 10000 --m 20000 --min-weight -1000000 --max-weight 1000000 --seed 1 -o /tmp/g/rand-d4.txt > /dev/null
$P generate random --n 10000 --m 30000 --min-weight -1000000 --max-weight 1000000 --seed 1 -o /tmp/g/rand-d6.txt > /dev/null
r() { # name file seconds seed extra...
    local name=$1 f=$2 t=$3 s=$4; shift 4
    timeout $((t + 30)) $P run --instance $f --algo parallel --backend cuda --time-limit $t --seed $s --json --trace $OUT/c4/runs/$name-s$s.trace.csv "$@" \
      | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('solution',None); d.pop('best_solution',None); print(json.dumps(d))" > $OUT/c4/runs/$name-s$s.json 2> $OUT/c4/runs/$name-s$s.err
    python3 -c "import json; d=json.load(open('$OUT/c4/runs/$name-s$s.json')); print('$name seed $s', d.get('best_fitness'), d.get('config',{}).get('annealing_chosen'), d.get('populations'))"
}
for d in d4 d6; do for s in 1 2; do
    r rand-$d-default /tmp/g/rand-$d.txt 10 $s
    r rand-$d-unannealed /tmp/g/rand-$d.txt 10 $s --local-search off
done; done
date -u +"sixty %F %T UTC" >> $OUT/c4/host.txt
$P generate torus --dims 2 --side 100 --weights gaussian --seed 1 -o /tmp/g/sg2d-gaussian-L100.txt > /dev/null
r sg2d-g100-60s-unannealed /tmp/g/sg2d-gaussian-L100.txt 60 1 --local-search off
r sg2d-g100-60s-growth1 /tmp/g/sg2d-gaussian-L100.txt 60 1 --anneal-growth 1
date -u +"end %F %T UTC" >> $OUT/c4/host.txt
sed -n '/Per instance/,/^$/p' $OUT/c4/gauss/summary.txt
rm -rf $OUT/c4/*/instances
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
