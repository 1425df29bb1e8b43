#!/usr/bin/env bash
# The colouring of 3-SAT 10^6 (bflt:64, incidence) in parallel rounds: batch sizes and threads.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/l; mkdir -p $D
{ nproc; lscpu | grep -E "Model name|L2|L3"; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf 2>&1 | tail -1
one() { # label env...
  env "${@:2}" $P info --instance /tmp/s1e6.cnf --json 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); print(sys.argv[1], "coloring_s %.3f fos %.2f colors %d" % (d["coloring_s"], d["fos_build_s"], d["colors"]))' $1
  grep -o "XSTAT base 0.*" $D/$1.err | head -1
}
one inorder-t2 RAYON_NUM_THREADS=2
for b in 4096 16384 65536; do one b$b-t16 RAYON_NUM_THREADS=16 XBATCH=$b; done
one b16384-t16-tail8 RAYON_NUM_THREADS=16 XBATCH=16384 XTAIL=8
one b16384-t16-tail128 RAYON_NUM_THREADS=16 XBATCH=16384 XTAIL=128
for t in 4 8; do one b16384-t$t RAYON_NUM_THREADS=$t XBATCH=16384; done
one b65536-t16-again RAYON_NUM_THREADS=16 XBATCH=65536
one b4096-t16-again RAYON_NUM_THREADS=16 XBATCH=4096
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf l.tgz l && rm -rf l
