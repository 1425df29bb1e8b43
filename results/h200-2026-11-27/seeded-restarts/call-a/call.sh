#!/usr/bin/env bash
# Restarts seeded from the elitist (prototype, PGOMEA_SEEDED=skip share): G-set graphs short of
# the best known, 60 s, seed 1, base / 0.5 / 0.75; then selftest and GPU tests of this build.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt; nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
mkdir -p $OUT/j
: > /tmp/jobs.txt
for g in G23 G35 G36 G37 G40; do for v in base 0.5 0.75; do
  envs=""; [ $v != base ] && envs="PGOMEA_SEEDED=$v"
  printf '%s\t60\t%s\n' "$g-$v-s1" "env $envs $R/.gpu/bin/pgomea run --set G --name $g --algo parallel --backend cuda --time-limit 60 --target best-known --seed 1 --json --quiet > $OUT/j/$g-$v-s1.json" >> /tmp/jobs.txt
done; done
python3 .gpu/jobs.py /tmp/jobs.txt 4 $OUT/logs > $OUT/jobs.txt 2>&1
date -u >> $OUT/gpus.txt
for f in $OUT/j/*.json; do echo "$(basename $f .json) $(grep -o '"best_fitness":[-0-9]*' $f) $(grep -o "\"time_s\":[0-9.]*" $f) $(grep -o "\"reached_target\":[a-z]*" $f) $(grep -o '"generations":[0-9]*' $f | head -1)"; done > $OUT/summary.txt
.gpu/bin/pgomea selftest > $OUT/selftest.txt 2>&1; echo "selftest rc $?" >> $OUT/selftest.txt
mkdir -p target/release && cp .gpu/bin/pgomea target/release/pgomea
(cd /tmp && $R/.gpu/bin/gpu-tests --test-threads=1 > $OUT/gpu-tests.txt 2>&1; echo "rc $?" >> $OUT/gpu-tests.txt)
cat $OUT/summary.txt; tail -3 $OUT/selftest.txt; grep "test result" $OUT/gpu-tests.txt
