#!/usr/bin/env bash
# Phase alignment (PGOMEA_ALIGN, experiment), second call: G81 and G77 10 s seeds 1-3; 10^6 torus 30 s seeds 3-4.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; I=/tmp/inst/instances
P=$PWD/.gpu/bin/pgomea-align; chmod +x $P
D=$OUT/w; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate torus --side 1000 --seed 1 -o /tmp/tor.txt 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name seed align [args]
  local n=$1 s=$2 a=$3; shift 3
  env ${a:+PGOMEA_ALIGN=1 PGOMEA_ALIGN_SAY=1} $P run --algo parallel --backend cuda --seed $s --json --trace $D/$n.trace.csv "$@" 2> $D/$n.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$n.json $n
}
for s in 1 2 3; do for a in "" 1; do
  one g81-a$a-s$s $s "$a" --instances-dir $I --set C --name G81 --time-limit 10
  one g77-a$a-s$s $s "$a" --instances-dir $I --set C --name G77 --time-limit 10
done; done 2>&1 | tee $D/runs.txt
for s in 3 4; do for a in "" 1; do
  one tor-a$a-s$s $s "$a" --instance /tmp/tor.txt --time-limit 30 --target best-known
done; done 2>&1 | tee -a $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf w.tgz w && rm -rf w
