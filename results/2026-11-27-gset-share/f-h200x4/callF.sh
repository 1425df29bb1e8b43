#!/usr/bin/env bash
# Issue 17 with the anneal share (default 0.75): every G-set graph at 10 s, the ten largest and
# the eight short small ones at 60 s, the +-1 3D glass of 22^3 at 60 s (3 seeds); 3-SAT 10^6 at
# 10 s before/after the parallel initial evaluation. One job per GPU, 16 cores each.
set -u
REPO=$PWD; P=$PWD/target/release/pgomea; B=$PWD/.gpu/bin/pgomea-base; chmod +x $P $B
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/f; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf > $D/gen.txt 2>&1
$P generate torus --dims 3 --side 22 --weights pm1 --seed 1 -o /tmp/sg3d-pm1-L22.txt >> $D/gen.txt 2>&1
for g in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$g $P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1 & done; wait
sed -e "s#\$P#$P#g" -e "s#\$B#$B#g" .gpu/jobsF.tsv > /tmp/jobs.tsv
timeout 540 python3 .gpu/jobs.py /tmp/jobs.tsv $D/runs > $D/driver.log 2>&1
tail -5 $D/driver.log
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf f.tgz f && rm -rf f
