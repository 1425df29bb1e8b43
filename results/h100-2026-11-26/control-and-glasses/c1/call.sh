#!/usr/bin/env bash
# L = 10 +-1 3D glass at 60 s (3 seeds, pgomea default against SA on 16 processes); the control's
# third instances of gset-random, maxsat and trap at 10 s (3 seeds).
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-head
export PGOMEA_INSTANCES=$PWD/.gpu/instances
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
mkdir -p $OUT/c1 /tmp/sg
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c1/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate torus --dims 3 --side 10 --weights pm1 --seed 1 -o /tmp/sg/sg3d-pm1-L10.txt
PYTHONUNBUFFERED=1 timeout 420 python3 benchmarks/peers_maxcut.py --pgomea $P \
  --instances /tmp/sg/sg3d-pm1-L10.txt --seeds 1,2,3 --time 60 --at 10,60 --methods sa,default --sa-processes 16 --out /tmp/o > $OUT/c1/sg60-pm1-L10.log 2>&1; echo "peers exit $?"
cp /tmp/o/peers.json $OUT/c1/sg60-pm1-L10.json 2>/dev/null
date -u +"control %F %T UTC" >> $OUT/c1/host.txt
timeout 150 benchmarks/control.sh --bin $P --backend cuda --time 10 --seeds 3 --classes gset-random,maxsat,trap --pick 3 --out $OUT/c1/control3 > $OUT/c1/control3.log 2>&1; echo "control exit $?"
date -u +"end %F %T UTC" >> $OUT/c1/host.txt
tail -12 $OUT/c1/sg60-pm1-L10.log; tail -12 $OUT/c1/control3.log
rm -rf $OUT/c1/control3/instances
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
