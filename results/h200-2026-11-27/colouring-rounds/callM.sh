#!/usr/bin/env bash
# Set-up on a rayon worker (XSCOPE) or from the main thread, and the colouring rounds' batch/tail.
set -u
P=$PWD/target/release/pgomea; chmod +x $P
D=$OUT/m; mkdir -p $D
date -u +"start %F %T UTC" > $D/host.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf 2>&1 | tail -1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/r1e6.txt 2>&1 | tail -1
$P generate torus --side 1000 -o /tmp/t1000.txt 2>&1 | tail -1
one() { # label instance env...
  env "${@:3}" $P info --instance $2 --json 2> $D/$1.err | python3 -c '
import json,sys; d=json.load(sys.stdin); print(sys.argv[1], "fos %.2f coloring %.3f layout %.3f colors %d" % (d["fos_build_s"], d["coloring_s"], d["layout_s"], d["colors"]))' $1
  grep -o "XSTAT base 0.*" $D/$1.err | head -1
}
for r in 1 2; do
  one sat-main-b16k-t32-$r /tmp/s1e6.cnf XBATCH=16384
  one sat-scope-b16k-t32-$r /tmp/s1e6.cnf XSCOPE=1 XBATCH=16384
  one sat-scope-b16k-t8-$r /tmp/s1e6.cnf XSCOPE=1 XBATCH=16384 XTAIL=8
  one sat-scope-b64k-t8-$r /tmp/s1e6.cnf XSCOPE=1 XBATCH=65536 XTAIL=8
  one sat-scope-b4k-t8-$r /tmp/s1e6.cnf XSCOPE=1 XBATCH=4096 XTAIL=8
done
one sat-inorder-t1 /tmp/s1e6.cnf RAYON_NUM_THREADS=1
for r in 1 2; do
  one rnd-main-$r /tmp/r1e6.txt XBATCH=16384
  one rnd-scope-$r /tmp/r1e6.txt XSCOPE=1 XBATCH=16384
  one tor-main-$r /tmp/t1000.txt XBATCH=16384
  one tor-scope-$r /tmp/t1000.txt XSCOPE=1 XBATCH=16384
done
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf m.tgz m && rm -rf m
