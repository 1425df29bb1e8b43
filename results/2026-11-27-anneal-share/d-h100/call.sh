#!/usr/bin/env bash
# --anneal-share on more kinds: the 10^6-vertex torus at 30 s (seed 1), the 2D +-1 glass of side
# 100 and G57 at 10 s (seeds 1, 2): default (share 0.75) against share 0.
set -uo pipefail
P=$PWD/target/release/pgomea; chmod +x $P
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/d; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P generate torus --side 1000 -o /tmp/t1000.txt > $D/gen.txt 2>&1
$P run --time-limit 1 --algo parallel --backend cuda > $D/warm.txt 2>&1
for v in 0.75 0; do
  $P run --instance /tmp/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --anneal-share $v \
    --trace $D/torus-share$v.csv --json 2> $D/torus-share$v.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print("torus 1000^2 share", sys.argv[2], d["best_fitness"], d["best_known"], round(100*d["best_fitness"]/d["best_known"],4), "%", "t", round(d["time_s"],2), "setup", round(d["setup_s"],2), d["populations"])' $D/torus-share$v.json $v
  grep fitted $D/torus-share$v.err
done
c() { timeout $1 benchmarks/control.sh --bin $P --backend cuda --time $2 --seeds $3 --classes $4 --pick $5 --variants $6 --out $D/$7 > $D/$7.log 2>&1; awk -F, 'NR>1{print $1,$3,$4,$5,$6,$15}' $D/$7/runs.csv; }
c 50 10 2 sg2d 1 default,share-0 sg2d-10
c 55 10 2 gset-torus 2 default,share-0 g57-10
date -u +"end %F %T UTC" >> $D/host.txt
rm -rf $D/*/instances
cd $OUT && tar czf d.tgz d && rm -rf d
