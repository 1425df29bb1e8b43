#!/usr/bin/env bash
# After section 74's walk: the bound under which warps take a group's lane pairs in the
# cooperative one-pass kernel (LANES_TO_WARPS; new = 4, L0/L1/L2 = 0/1/2). bench throughput at
# n = 16-64 (the cooperative kernel; 256 and 1024 run by solution, where the bound does not apply).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b7; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
G=$B/pgomea-new
$G generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$G generate nk --n 10000 --k 5 --seed 1 -o $W/nk10k.nk > /dev/null
$G generate sat --n 20000 --m 85000 --seed 1 -o $W/sat20k.cnf > /dev/null
for round in 1 2; do
for v in new L0 L1 L2; do
  for inst in $R/.gpu/inst/G81.txt $R/.gpu/inst/G1.txt $W/t100.txt $W/nk10k.nk $W/sat20k.cnf; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    timeout 90 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt $W/nk10k.nk $W/sat20k.cnf
tar czf $OUT/b7.tgz -C /tmp b7
cat $W/info.txt
