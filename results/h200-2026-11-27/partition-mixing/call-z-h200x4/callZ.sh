#!/usr/bin/env bash
# Partition mixing by default (Max-Cut below 10^5 variables): every G-set graph at 10 s, the largest
# and the short small ones at 60 s, the +-1 3D glass at 60 s, controls. One job per GPU, 16 cores each.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P
D=$OUT/z; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate torus --dims 3 --side 22 --weights pm1 --seed 1 -o /tmp/sg3d-pm1-L22.txt > $D/gen.txt 2>&1
$P generate torus --dims 3 --side 15 --weights gaussian --seed 1 -o /tmp/g3g.txt >> $D/gen.txt 2>&1
$P generate torus --side 100 --weights gaussian --seed 1 -o /tmp/g2g.txt >> $D/gen.txt 2>&1
for g in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$g $P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1 & done; wait
sed -e "s#\$P#$P#g" .gpu/jobsZ.tsv > /tmp/jobs.tsv
timeout 560 python3 .gpu/jobs.py /tmp/jobs.tsv $D/runs > $D/driver.log 2>&1
tail -3 $D/driver.log
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf z.tgz z && rm -rf z
