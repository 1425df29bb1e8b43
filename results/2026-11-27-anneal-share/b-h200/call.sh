#!/usr/bin/env bash
# Issue 17: the annealing's share of the time left, fitted at the pace of the population before.
# 10 s, three seeds: default (share 0.75) against share 0 (the build before). 60 s, seed 1: the
# 3D Gaussian glass of side 20 and random NK (n = 2000): default, control, share 0.
set -uo pipefail
P=$PWD/target/release/pgomea; chmod +x $P
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/b; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > $D/warm.txt 2>&1
c() { timeout $1 benchmarks/control.sh --bin $P --backend cuda --time $2 --seeds $3 --classes $4 --pick $5 --variants $6 --out $D/$7 > $D/$7.log 2>&1; sed -n '/^class  *instance/,/^$/p' $D/$7/summary.txt; }
c 75 10 3 gset-torus 1 default,share-0 g81-10
c 70 10 3 sg3d 2 default,share-0 sg3d-10
c 70 10 3 nk 2 default,share-0 nk-10
c 370 60 1 sg3d,nk 2 default,anneal-only,share-0 c60
date -u +"end %F %T UTC" >> $D/host.txt
rm -rf $D/*/instances
cd $OUT && tar czf b.tgz b && rm -rf b
