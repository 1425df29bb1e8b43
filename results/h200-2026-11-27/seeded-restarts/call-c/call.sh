#!/usr/bin/env bash
# Restarts from the elitist (--elitist-restarts, the committed option): the control's classes at
# 10 s, default against restarts, seeds 1-3 (one job per class and seed, four GPUs); selftest and
# GPU tests of this build as one more job.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
: > /tmp/jobs.txt
printf '%s\t%s\t%s\n' checks 170 "cd /tmp && $R/.gpu/bin/pgomea selftest > $W/selftest.txt 2>&1; echo \"selftest rc \$?\" >> $W/selftest.txt; mkdir -p $R/target/release && cp $R/.gpu/bin/pgomea $R/target/release/pgomea && $R/.gpu/bin/gpu-tests --test-threads=1 > $W/gpu-tests.txt 2>&1; echo \"rc \$?\" >> $W/gpu-tests.txt" >> /tmp/jobs.txt
for s in 1 2 3; do for c in gset-random gset-torus sg2d sg3d nk trap maxsat; do
  printf '%s\t45\t%s\n' "$c-s$s" "bash $R/benchmarks/control.sh --bin $R/.gpu/bin/pgomea --classes $c --variants default,restarts --seeds 1 --seed-from $s --time 10 --out $W/$c-s$s" >> /tmp/jobs.txt
done; done
python3 .gpu/jobs.py /tmp/jobs.txt 4 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
first=$(ls -d $W/*-s1 | head -1)
{ head -1 $first/runs.csv; for d in $W/*-s[123]; do tail -n +2 $d/runs.csv; done; } > $W/runs.csv
bash benchmarks/control.sh --summarise $W/runs.csv --variants default,restarts > $W/summary.txt 2>&1
rm -rf $W/*-s[123]/instances
tar czf $OUT/callC.tgz -C /tmp w
tail -4 $W/selftest.txt; grep "test result" $W/gpu-tests.txt; tail -3 $W/jobs.txt; tail -32 $W/summary.txt
