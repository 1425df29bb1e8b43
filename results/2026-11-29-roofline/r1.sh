#!/usr/bin/env bash
# Issue 16 item 3 at n >= 256 on the head (464107e): ncu SpeedOfLight of the second generation
# kernel of `bench throughput` on G81 and the 10^4 torus at n = 256 and 1024 (section 31 measured
# these on the H100 on 2026-11-25, before the lane walk, the register budget and the teams), and
# bench throughput's ms per generation on G81 at n = 16, 256, 1024.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/r1; rm -rf $W; mkdir -p $W; P=$B/pgomea-head; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1); $NCU --version | tail -1 >> $W/info.txt
$P generate torus --side 100 --seed 1 -o /tmp/t100.txt > /dev/null
for spec in "G81 256 $R/.gpu/inst/G81.txt" "G81 1024 $R/.gpu/inst/G81.txt" "t100 256 /tmp/t100.txt" "t100 1024 /tmp/t100.txt"; do
  set -- $spec
  timeout 100 $NCU --section SpeedOfLight --section Occupancy -k regex:generation --launch-skip 1 --launch-count 1 \
    $P bench throughput --instance $3 --backend cuda --population $2 --generations 3 > $W/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2 done [$(el) s]" >> $W/info.txt
done
timeout 120 $P bench throughput --instance $R/.gpu/inst/G81.txt --backend cuda --population 16,256,1024 --generations 10 > $W/bench-G81.txt 2>&1
echo "bench done [$(el) s]" >> $W/info.txt
tar czf $OUT/r1.tgz -C /tmp r1
cat $W/info.txt
for f in $W/ncu-*.txt; do echo "== $f"; grep -E "generation|Grid Size|Block Size|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Achieved Occupancy" $f | head -12; done
grep -v "^\s*$" $W/bench-G81.txt | tail -12
