#!/usr/bin/env bash
# The final build: tests/gpu.rs and the self-test; the control as it was (share 0) at 60 s on the
# 3D Gaussian glass of side 20 and random NK (n = 2000), seed 1.
set -u
REPO=$PWD; P=$PWD/target/release/pgomea; chmod +x $P $REPO/.gpu/bin/*
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea; }
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/c; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
(cd /tmp && $REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu tests rc $?"); grep -E 'test result|FAILED|panicked|SKIPPED' $D/gpu-tests.txt | head
$P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -3 $D/selftest.txt
timeout 135 benchmarks/control.sh --bin $P --backend cuda --time 60 --seeds 1 --classes sg3d,nk --pick 2 --variants anneal-only-share-0 --out $D/c60-old > $D/c60-old.log 2>&1
awk -F, 'NR>1{print $1,$3,$4,$5,$6,$15}' $D/c60-old/runs.csv
date -u +"end %F %T UTC" >> $D/host.txt
rm -rf $D/*/instances
cd $OUT && tar czf c.tgz c && rm -rf c
