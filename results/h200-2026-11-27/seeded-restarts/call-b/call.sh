#!/usr/bin/env bash
# Restarts seeded from the elitist (prototype, PGOMEA_SEEDED=0.5), seeds 2 and 3, G-set graphs
# short of the best known, 60 s; the control's NK rows with the current default (10 s, seeds 1-3).
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/w; mkdir -p $W/j
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; nproc >> $W/gpus.txt; date -u >> $W/gpus.txt
: > /tmp/jobs.txt
for s in 2 3; do for g in G23 G35 G36 G37 G40; do for v in base 0.5; do
  envs=""; [ $v != base ] && envs="PGOMEA_SEEDED=$v"
  printf '%s\t60\t%s\n' "$g-$v-s$s" "env $envs $R/.gpu/bin/pgomea run --set G --name $g --algo parallel --backend cuda --time-limit 60 --target best-known --seed $s --json --quiet > $W/j/$g-$v-s$s.json" >> /tmp/jobs.txt
done; done; done
for s in 1 2 3; do
  printf '%s\t45\t%s\n' "nk-control-s$s" "bash $R/benchmarks/control.sh --bin $R/.gpu/bin/pgomea --classes nk --variants default,anneal-only --seeds 1 --seed-from $s --time 10 --out $W/nk-s$s" >> /tmp/jobs.txt
done
python3 .gpu/jobs.py /tmp/jobs.txt 4 $W/logs > $W/jobs.txt 2>&1
date -u >> $W/gpus.txt
for f in $W/j/*.json; do echo "$(basename $f .json) $(grep -o '"best_fitness":[-0-9]*' $f) $(grep -o '"time_s":[0-9.]*' $f) $(grep -o '"reached_target":[a-z]*' $f) $(grep -o '"generations":[0-9]*' $f | head -1)"; done > $W/summary.txt
{ head -1 $W/nk-s1/runs.csv; for s in 1 2 3; do tail -n +2 $W/nk-s$s/runs.csv; done; } > $W/nk-runs.csv
bash benchmarks/control.sh --summarise $W/nk-runs.csv --variants default,anneal-only > $W/nk-summary.txt 2>&1
tar czf $OUT/callB.tgz -C /tmp w
cat $W/summary.txt; cat $W/nk-summary.txt | tail -30
