#!/usr/bin/env bash
# A lane's donor walk over a gathered set: base against g1 (walk one candidate a round) and g2
# (two a round, copies gathered), uncapped and with .maxnreg 64 (suffix c); timing probes pwalk
# (a lane's walk without loads) and peval (a lane's evaluation skipped). bench throughput.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/b1; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; nproc >> $W/info.txt; date -u >> $W/info.txt
$B/pgomea-base generate torus --side 100 --seed 1 -o $W/t100.txt
for round in 1 2; do
for v in base basec g1 g1c g2 g2c pwalkc pevalc; do
  bin=$B/pgomea-${v%c}; cap=""; [[ $v == *c ]] && cap=64
  pops=16,32,64,256,1024; [[ $v == p* ]] && pops=16,32,64
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    env ${cap:+PGOMEA_EXP_MAXNREG=$cap} timeout 60 $bin bench throughput --instance $inst --backend cuda --population $pops --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
rm -f $W/t100.txt
tar czf $OUT/b1.tgz -C /tmp b1
cat $W/info.txt
