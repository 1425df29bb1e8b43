#!/usr/bin/env bash
# Spread crews: base (HEAD 8581615), free (lanes and warps spread over the blocks that block
# crews leave free, computed per pass), spread2 (spread over every block, computed once).
# Default way of each build, ms per generation, two rounds interleaved.
set -uo pipefail
mkdir -p /tmp/xb && tar xJf .gpu/xbin.tar.xz -C /tmp/xb && chmod +x /tmp/xb/*
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c3 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c3/host.txt
P=/tmp/xb/pgomea-base
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
$P generate torus --side 100 --seed 1 -o /tmp/g/t100.txt >/dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/g/nk2000.txt >/dev/null
$P generate nk --n 50000 --k 5 --neighbourhood random --seed 1 -o /tmp/g/nk50000.txt >/dev/null
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/g/trap.txt >/dev/null
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/g/sat.txt >/dev/null
for v in base free spread2; do /tmp/xb/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
b() { # label instance-args pops [env]
  local v=$1 lab=$2 pops=$3; shift 3
  env "$@" /tmp/xb/pgomea-$v bench throughput $INST --backend cuda --population $pops --generations 10 2>/dev/null | grep '^| ' | grep -v instance | awk -F'|' -v l="$v $lab" '{print l, $5, $8}'
}
for round in 1 2; do
  for v in base free spread2; do
    INST="--set C --name G81" b $v G81 16,32,64,256,1024
    INST="--set C --name G1" b $v G1 16,256
    INST="--set C --name G55" b $v G55 16,256
    INST="--set C --name G1" b $v G1-coop 16 PGOMEA_CUDA_GENERATION=cooperative
    INST="--instance /tmp/g/t100.txt" b $v t100 16,256
    INST="--instance /tmp/g/nk2000.txt" b $v nk2000 16,256
    INST="--instance /tmp/g/nk50000.txt" b $v nk50000 16,256
    INST="--instance /tmp/g/trap.txt" b $v trap 16,256
    INST="--instance /tmp/g/sat.txt" b $v sat 16,256
  done
done 2>&1 | tee $OUT/c3/bench.txt
date -u +"end %F %T UTC" >> $OUT/c3/host.txt
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
