#!/usr/bin/env bash
# 3D +-1 spin glass of 46^3 spins at 60 s, seeds 1-3: pgomea's default (final build) against SA on 16 processes.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-final
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
mkdir -p $OUT/sg /tmp/sg
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/sg/host.txt; nproc >> $OUT/sg/host.txt; date -u +"start %F %T UTC" >> $OUT/sg/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate torus --dims 3 --side 46 --weights pm1 --seed 1 -o /tmp/sg/sg3d-pm1-L46.txt
PYTHONUNBUFFERED=1 timeout 480 python3 benchmarks/peers_maxcut.py --pgomea $P \
  --instances /tmp/sg/sg3d-pm1-L46.txt --seeds 1,2,3 --time 60 --at 10,60 --methods sa,default --sa-processes 16 --out /tmp/o > $OUT/sg/sg60-pm1-L46.log 2>&1; echo "exit $?"
date -u +"end %F %T UTC" >> $OUT/sg/host.txt
cp /tmp/o/peers.json $OUT/sg/sg60-pm1-L46.json 2>/dev/null
tail -20 $OUT/sg/sg60-pm1-L46.log
cd $OUT && tar czf sg.tgz sg && rm -rf sg
