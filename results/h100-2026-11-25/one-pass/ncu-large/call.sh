#!/usr/bin/env bash
# ncu SpeedOfLight of the one-pass generation kernels at n >= 256.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/n /tmp/inst; P=$B/pgomea-rev
nvidia-smi --query-gpu=name --format=csv > $OUT/n/gpu.txt; date -u >> $OUT/n/gpu.txt
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1
for spec in "G81 1024 --set C --name G81" "t100 256 --instance /tmp/inst/t100.txt" "t100 1024 --instance /tmp/inst/t100.txt" "trap 256 --instance /tmp/inst/trap.nk"; do
  set -- $spec; name=$1; n=$2; shift 2
  timeout 150 ncu --section SpeedOfLight -k regex:"pgomea_generation.*_(pairwise|tables)$" --launch-count 1 $P bench throughput "$@" --backend cuda --population $n --generations 2 > $OUT/n/ncu-$name-$n.txt 2>&1
  echo "== $name n=$n"; grep -E '  pgomea_generation|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput' $OUT/n/ncu-$name-$n.txt | head -8
done
cd $OUT && tar czf n.tgz n && rm -rf n
