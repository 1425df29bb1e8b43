#!/usr/bin/env bash
# The control (anneal-only) against the default at 10 s, three seeds, with the anneal share and
# the adaptive first annealing: classes $1.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/$2; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
timeout 570 benchmarks/control.sh --bin $P --backend cuda --time 10 --seeds 3 --classes $1 --out $D/control > $D/control.log 2>&1
echo "control rc $?"; tail -30 $D/control/summary.md 2>/dev/null || tail -20 $D/control.log
date -u +"end %F %T UTC" >> $D/host.txt
rm -rf $D/control/instances
cd $OUT && tar czf $2.tgz $2 && rm -rf $2
