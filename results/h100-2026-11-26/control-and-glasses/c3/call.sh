#!/usr/bin/env bash
# The control's third and fourth spin glasses (2D side 200, 3D side 30; +-1 and Gaussian) at 10 s,
# 3 seeds; then the control at 60 s, seed 1, on G81 and the 2D Gaussian glass of side 100.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-head
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c3
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c3/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
timeout 290 benchmarks/control.sh --bin $P --backend cuda --time 10 --seeds 3 --classes sg2d,sg3d --pick 3,4 --out $OUT/c3/control34 > $OUT/c3/control34.log 2>&1; echo "control34 exit $?"
date -u +"c60 %F %T UTC" >> $OUT/c3/host.txt
timeout 140 benchmarks/control.sh --bin $P --backend cuda --time 60 --seeds 1 --classes gset-torus --pick 1 --out $OUT/c3/c60-G81 > $OUT/c3/c60-G81.log 2>&1; echo "c60 G81 exit $?"
timeout 140 benchmarks/control.sh --bin $P --backend cuda --time 60 --seeds 1 --classes sg2d --pick 2 --out $OUT/c3/c60-sg2d > $OUT/c3/c60-sg2d.log 2>&1; echo "c60 sg2d exit $?"
date -u +"end %F %T UTC" >> $OUT/c3/host.txt
for f in control34 c60-G81 c60-sg2d; do sed -n '/Per instance/,/^$/p' $OUT/c3/$f/summary.txt; done
rm -rf $OUT/c3/*/instances
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
