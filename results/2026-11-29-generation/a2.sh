#!/usr/bin/env bash
# Where a generation at n = 16 spends its time with today's build: builds whose run_pass skips
# crew loops (RUN bit 1 lanes, 2 warps, 4 blocks; timing only, populations differ).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/a2; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-base generate torus --side 100 --seed 1 -o $W/t100.txt
for round in 1 2; do
for v in base r0 r1 r2 r4 r3 r6 r5; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/a2.tgz -C /tmp a2
cat $W/info.txt
