#!/usr/bin/env bash
# Rerun of call 1's four runs lost to the cold start; the PTX JIT's cost; mixing on NK and traps.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin/pgomea
chmod +x $B benchmarks/*.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt; nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
W=/tmp/w2; mkdir -p $W
G1=$PGOMEA_INSTANCES/gset/G1.txt
# JIT: the first run on this fresh machine, then with the cache disabled (JIT every time), then warm.
{
for k in first nocache1 nocache2 warm1 warm2; do
  e=""; case $k in nocache*) e="CUDA_CACHE_DISABLE=1";; esac
  t0=$(date +%s.%N)
  env $e $B run --instance $G1 --algo parallel --backend cuda --max-evals 2000 --json --quiet > $W/jit-$k.json 2>> $W/jit-err.txt
  t1=$(date +%s.%N)
  echo "$k wall $(echo "$t1 - $t0" | bc 2>/dev/null || python3 -c "print($t1-$t0)") s $(grep -o '"setup_s":[0-9.]*' $W/jit-$k.json) $(grep -o '"backend":"[^"]*"' $W/jit-$k.json | head -1)"
done
cat $W/jit-err.txt
} > $OUT/jit.txt 2>&1
C="$R/benchmarks/control.sh --bin $B"
$C --classes gset-random --pick 1 --seeds 1 --time 10 --variants default --out $W/re-g1 > /dev/null 2>&1
$C --classes nk --pick 1 --seeds 1 --time 10 --variants default --out $W/re-nk > /dev/null 2>&1
$C --classes sg2d --pick 1 --seeds 1 --time 10 --variants default --out $W/re-sg2d > /dev/null 2>&1
$C --classes sg3d --pick 1 --seeds 1 --time 10 --variants default --out $W/re-sg3d > /dev/null 2>&1
cat $W/re-*/runs.csv | grep -v '^instance' > $OUT/rerun.csv
$C --classes nk --pick 1,2,3 --seeds 3 --time 10 --variants default,mix,anneal-only-mix --out $W/mix-nk > $OUT/mix-nk.txt 2>&1
$C --classes trap --pick 1,2,3 --seeds 3 --time 10 --variants default,mix --out $W/mix-trap > $OUT/mix-trap.txt 2>&1
cd /tmp && tar czf $OUT/call2.tgz w2
