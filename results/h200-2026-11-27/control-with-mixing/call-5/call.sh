#!/usr/bin/env bash
# Forced Improvement with the mixed elitist as its donor: default against default --fi, 10 s.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin/pgomea; chmod +x $B benchmarks/*.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt; nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
C="$R/benchmarks/control.sh --bin $B --variants default,fi --time 10 --seeds 2"
W=/tmp/w5; mkdir -p $W
$C --classes gset-torus --pick 1,2 --out $W/gt > $W/gt.log 2>&1
$C --classes sg3d --pick 1,2 --out $W/s3 > $W/s3.log 2>&1
$C --classes sg2d --pick 1 --out $W/s2 > $W/s2.log 2>&1
$C --classes nk --pick 2 --out $W/nk > $W/nk.log 2>&1
f=$OUT/fi-runs.csv; first=1
for d in gt s3 s2 nk; do
  if [ $first = 1 ]; then cat $W/$d/runs.csv > $f; first=0; else tail -n +2 $W/$d/runs.csv >> $f; fi
done
$R/benchmarks/control.sh --summarise $f --variants default,fi > $OUT/fi-summary.txt
cd /tmp && tar czf $OUT/call5.tgz w5
