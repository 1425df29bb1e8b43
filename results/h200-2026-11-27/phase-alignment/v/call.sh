#!/usr/bin/env bash
# Phase alignment of new populations to the elitist (PGOMEA_ALIGN, experiment) against the default:
# 10^6 torus 30 s to the optimum, G81 and G36 10 s, 3D glasses 22^3 (+-1, Gaussian) 10 s; seeds 1-2.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; I=/tmp/inst/instances
P=$PWD/.gpu/bin/pgomea-align; chmod +x $P
D=$OUT/v; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate torus --side 1000 --seed 1 -o /tmp/tor.txt 2>&1 | tail -1
$P generate torus --side 22 --dims 3 --weights pm1 --seed 1 -o /tmp/pm.txt 2>&1 | tail -1
$P generate torus --side 22 --dims 3 --weights gaussian --seed 1 -o /tmp/ga.txt 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name seed align [args]
  local n=$1 s=$2 a=$3; shift 3
  env ${a:+PGOMEA_ALIGN=1 PGOMEA_ALIGN_SAY=1} $P run --algo parallel --backend cuda --seed $s --json --trace $D/$n.trace.csv "$@" 2> $D/$n.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$n.json $n
}
for s in 1 2; do for a in "" 1; do
  one tor-a$a-s$s $s "$a" --instance /tmp/tor.txt --time-limit 30 --target best-known
done; done 2>&1 | tee $D/runs.txt
for s in 1 2; do for a in "" 1; do
  one g81-a$a-s$s $s "$a" --instances-dir $I --set G --name G81 --time-limit 10
  one g36-a$a-s$s $s "$a" --instances-dir $I --set G --name G36 --time-limit 10
  one pm-a$a-s$s $s "$a" --instance /tmp/pm.txt --time-limit 10
  one ga-a$a-s$s $s "$a" --instance /tmp/ga.txt --time-limit 10
done; done 2>&1 | tee -a $D/runs.txt
grep -h aligned $D/*-a1-*.err | sort | uniq -c | head
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf v.tgz v && rm -rf v
