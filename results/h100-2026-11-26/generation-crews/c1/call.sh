#!/usr/bin/env bash
# Where G81's generation at n = 16 spends its time: block sizes of the cooperative kernel, and
# per-group durations of the graph way's pass kernels (ncu). Then the 10^7 random graph run.
set -uo pipefail
B=$PWD/.gpu/bin; chmod +x $B/*; P=$B/pgomea-base
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c1 /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c1/host.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
bt() { # label env... -- pops
    local label=$1; shift
    env "$@" $P bench throughput --set C --name G81 --backend cuda --population 16,32,64 --generations 10 2>/dev/null | grep '^| G81' | awk -F'|' -v l="$label" '{print l, $5, $8, $9}'
}
for round in 1 2; do
  bt default PGOMEA_CUDA_GENERATION=cooperative
  bt b1024x1 PGOMEA_CUDA_GENERATION=cooperative PGOMEA_GENERATION_BLOCK=1024 PGOMEA_GENERATION_BLOCKS_PER_SM=1
  bt b512x1 PGOMEA_CUDA_GENERATION=cooperative PGOMEA_GENERATION_BLOCKS_PER_SM=1
  bt b256x4 PGOMEA_CUDA_GENERATION=cooperative PGOMEA_GENERATION_BLOCK=256 PGOMEA_GENERATION_BLOCKS_PER_SM=4
  bt b128x8 PGOMEA_CUDA_GENERATION=cooperative PGOMEA_GENERATION_BLOCK=128 PGOMEA_GENERATION_BLOCKS_PER_SM=8
done 2>&1 | tee $OUT/c1/blocks.txt
# Per-group durations: the graph way's pass kernels, first generations of a run at n = 16.
PGOMEA_CUDA_GENERATION=graph timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:pgomea_pass --launch-count 300 --csv \
  $P run --set C --name G81 --algo parallel --backend cuda --local-search off --max-population 16 --max-evals 400000 --seed 1 --quiet > $OUT/c1/ncu-groups.csv 2> $OUT/c1/ncu.err
echo "ncu exit $? lines $(wc -l < $OUT/c1/ncu-groups.csv)"
date -u +"end-bench %F %T UTC" >> $OUT/c1/host.txt
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
