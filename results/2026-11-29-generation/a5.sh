#!/usr/bin/env bash
# The cooperative grid's shape at small populations on an H200 (9aee8a7's kernels, `base`):
# block size x blocks per multiprocessor, G81 and a 100^2 torus, n = 16, 32, 64.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins2.txz -C $B; chmod +x $B/*
W=/tmp/a5; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-base generate torus --side 100 --seed 1 -o $W/t100.txt
for round in 1 2; do
for shape in 512x2 512x1 1024x1 256x4 256x2 128x4 256x1; do
  IFS=x read -r blk per <<< "$shape"
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $shape round $round $(basename $inst)" >> $W/bench.txt
    PGOMEA_GENERATION_BLOCK=$blk PGOMEA_GENERATION_BLOCKS_PER_SM=$per $B/pgomea-base bench throughput --instance $inst --backend cuda --population 16,32,64 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/a5.tgz -C /tmp a5
cat $W/info.txt
