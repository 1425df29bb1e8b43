#!/usr/bin/env bash
# The control at 60 s, seed 1: the 3D Gaussian glass of side 20 and the random NK landscape (n = 2000, K = 5);
# the 2D +-1 glass of side 100.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-head
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c6
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c6/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
timeout 260 benchmarks/control.sh --bin $P --backend cuda --time 60 --seeds 1 --classes sg3d,nk --pick 2 --out $OUT/c6/c60-sg3d-nk > $OUT/c6/c60-sg3d-nk.log 2>&1
timeout 140 benchmarks/control.sh --bin $P --backend cuda --time 60 --seeds 1 --classes sg2d --pick 1 --out $OUT/c6/c60-sg2d-pm1 > $OUT/c6/c60-sg2d-pm1.log 2>&1
date -u +"end %F %T UTC" >> $OUT/c6/host.txt
for f in c60-sg3d-nk c60-sg2d-pm1; do sed -n '/Per instance/,/^$/p' $OUT/c6/$f/summary.txt; done
rm -rf $OUT/c6/*/instances
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
