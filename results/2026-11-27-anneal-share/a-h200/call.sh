#!/usr/bin/env bash
# Issue 17: the annealing's share of the time left. 10 s, three seeds: default (share 0.75),
# share 0 (every annealing as long as asked, the build before), share 0.5, the control (share 0.75).
# 60 s, seed 1: G81 default and share 0.
set -uo pipefail
P=$PWD/target/release/pgomea; chmod +x $P
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/a; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > $D/warm.txt 2>&1
V=default,share-0,share-0.5,anneal-only
c() { timeout $1 benchmarks/control.sh --bin $P --backend cuda --time $2 --seeds $3 --classes $4 --pick $5 --variants $6 --out $D/$7 > $D/$7.log 2>&1; sed -n '/Per instance/,$p' $D/$7/summary.txt; }
c 140 10 3 gset-torus 1 $V g81-10
c 140 10 3 sg3d 2 $V sg3d-10
c 140 10 3 nk 2 $V nk-10
c 140 60 1 gset-torus 1 default,share-0 g81-60
date -u +"end %F %T UTC" >> $D/host.txt
grep -h "fitted" $D/*/json/*.err | sort | uniq -c | sort -rn | head -20
rm -rf $D/*/instances
cd $OUT && tar czf a.tgz a && rm -rf a
