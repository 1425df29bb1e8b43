#!/usr/bin/env bash
# Squads: a group's lane sets to squads of 4 lanes (sq4) or 8, else 4 (sq84) where the grid has
# the lanes, against base and law4 (lane sets to warps where they fit 4 rounds). Then the
# self-test of sq84 (GPU against CPU, every kernel).
set -uo pipefail
mkdir -p /tmp/xb && tar xJf .gpu/xbin.tar.xz -C /tmp/xb && chmod +x /tmp/xb/*
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c5 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c5/host.txt
P=/tmp/xb/pgomea-base
$P generate torus --side 100 --seed 1 -o /tmp/g/t100.txt >/dev/null
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/g/trap.nk >/dev/null
for v in base law4 sq4 sq84; do /tmp/xb/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
b() {
  local v=$1 lab=$2 pops=$3; shift 3
  env "$@" /tmp/xb/pgomea-$v bench throughput $INST --backend cuda --population $pops --generations 10 2>$OUT/c5/err-$v-$lab.txt | grep '^| ' | grep -v '| instance' | awk -F'|' -v l="$v $lab" '{print l, $5, $8}'
}
for round in 1 2; do
  for v in base law4 sq4 sq84; do
    INST="--set C --name G81" b $v G81 16,32,64,256
    INST="--set C --name G1" b $v G1-coop 16 PGOMEA_CUDA_GENERATION=cooperative
    INST="--instance /tmp/g/t100.txt" b $v t100 16,256
    INST="--instance /tmp/g/trap.nk" b $v trap 16
  done
done 2>&1 | tee $OUT/c5/bench.txt
timeout 200 /tmp/xb/pgomea-sq84 selftest > $OUT/c5/selftest-sq84.log 2>&1; echo "selftest sq84 exit $?"; tail -3 $OUT/c5/selftest-sq84.log
date -u +"end %F %T UTC" >> $OUT/c5/host.txt
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
