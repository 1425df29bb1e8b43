#!/usr/bin/env bash
# Spread crews (law0 = spread2 of call 3) and, in the cooperative kernels, a group's lane sets
# given to warps where n x lane sets <= R x the grid's warps (lawR), against base (HEAD 8581615).
# Default way of each build, s per generation, two rounds interleaved.
set -uo pipefail
mkdir -p /tmp/xb && tar xJf .gpu/xbin.tar.xz -C /tmp/xb && chmod +x /tmp/xb/*
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c4 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c4/host.txt
P=/tmp/xb/pgomea-base
$P generate torus --side 100 --seed 1 -o /tmp/g/t100.txt >/dev/null
$P generate nk --n 50000 --k 5 --neighbourhood random --seed 1 -o /tmp/g/nk50000.nk >/dev/null
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/g/trap.nk >/dev/null
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/g/sat.cnf >/dev/null
for v in base law0 law2 law4 law8; do /tmp/xb/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
b() {
  local v=$1 lab=$2 pops=$3; shift 3
  env "$@" /tmp/xb/pgomea-$v bench throughput $INST --backend cuda --population $pops --generations 10 2>$OUT/c4/err-$v-$lab.txt | grep '^| ' | grep -v '| instance' | awk -F'|' -v l="$v $lab" '{print l, $5, $8}'
}
for round in 1 2; do
  for v in base law0 law2 law4 law8; do
    INST="--set C --name G81" b $v G81 16,32,64,256
    INST="--set C --name G1" b $v G1 16,256
    INST="--set C --name G1" b $v G1-coop 16 PGOMEA_CUDA_GENERATION=cooperative
    INST="--instance /tmp/g/t100.txt" b $v t100 16,256
    INST="--instance /tmp/g/nk50000.nk" b $v nk50000 16
    INST="--instance /tmp/g/trap.nk" b $v trap 16
    INST="--instance /tmp/g/sat.cnf" b $v sat 16,256
  done
done 2>&1 | tee $OUT/c4/bench.txt
date -u +"end %F %T UTC" >> $OUT/c4/host.txt
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
