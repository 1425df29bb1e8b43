#!/usr/bin/env bash
# Restarts from the elitist at 60 s: G81 and G72, the 3D Gaussian glass of 20^3, the 2D +-1 glass
# of 100^2; default against restarts, seeds 1 and 2, four GPUs.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
: > /tmp/jobs.txt
for s in 1 2; do
  for cp in gset-torus:3 gset-torus:5 sg3d:2 sg2d:1; do c=${cp%:*}; p=${cp#*:}
    printf '%s\t125\t%s\n' "$c-p$p-s$s" "bash $R/benchmarks/control.sh --bin $R/.gpu/bin/pgomea --classes $c --pick $p --variants default,restarts --seeds 1 --seed-from $s --time 60 --out $W/$c-p$p-s$s" >> /tmp/jobs.txt
  done
done
python3 .gpu/jobs.py /tmp/jobs.txt 4 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
first=$(ls -d $W/*-s1 | head -1)
{ head -1 $first/runs.csv; for d in $W/*-s[12]; do tail -n +2 $d/runs.csv; done; } > $W/runs.csv
bash benchmarks/control.sh --summarise $W/runs.csv --variants default,restarts > $W/summary.txt 2>&1
rm -rf $W/*-s[12]/instances
tar czf $OUT/callD.tgz -C /tmp w
tail -3 $W/jobs.txt; tail -30 $W/summary.txt
