#!/usr/bin/env bash
# After section 74: every crew's evaluation with 4 subfunctions in flight per member (e4; the
# tables kernels would spill past check-ptx's allowance, so a measurement only) against final.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b9; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-final generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
for round in 1 2; do
for v in final e4; do
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    timeout 60 $B/pgomea-$v bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/b9.tgz -C /tmp b9
cat $W/info.txt
