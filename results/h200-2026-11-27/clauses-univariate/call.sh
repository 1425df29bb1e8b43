#!/usr/bin/env bash
# univariate against the default bflt:16 on planted 3-SAT of 10^5, 3x10^5 and 10^6 variables (10 s,
# seeds 1-2; 10^5 to the optimum); the 10^7-vertex sparse random graph at 120 s under the default.
set -u
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P
D=$OUT/t; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
$P generate sat --n 100000 --m 426000 --seed 1 -o /tmp/sat1.cnf 2>&1 | tail -1
$P generate sat --n 300000 --m 1278000 --seed 1 -o /tmp/sat3.cnf 2>&1 | tail -1
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/sat6.cnf 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name instance seed [args]
  local n=$1 f=$2 s=$3; shift 3
  $P run --instance $f --algo parallel --backend cuda --seed $s --json --trace $D/$n.trace.csv "$@" 2> $D/$n.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "before %.2f setup %.2f" % (d.get("before_setup_s",0), d.get("setup_s",0)), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"), "peak", d.get("peak_host_memory_bytes"), d.get("peak_device_memory_bytes"))' $D/$n.json $n
}
for s in 1 2; do
  for L in univariate bflt:16; do one sat1-${L/:/}-s$s /tmp/sat1.cnf $s --time-limit 10 --target best-known --linkage $L; done
  for L in univariate bflt:16; do one sat3-${L/:/}-s$s /tmp/sat3.cnf $s --time-limit 10 --linkage $L; done
  for L in univariate bflt:16; do one sat6-${L/:/}-s$s /tmp/sat6.cnf $s --time-limit 10 --linkage $L; done
done 2>&1 | tee $D/runs.txt
rm -f /tmp/sat*.cnf
$P generate random --n 10000000 --m 22500000 --seed 1 -o /tmp/r7.txt 2>&1 | tail -1
/usr/bin/time -v -o $D/r7.time $P run --instance /tmp/r7.txt --algo parallel --backend cuda --time-limit 120 --seed 1 --json --trace $D/r7.trace.csv 2> $D/r7.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print("r7", d["best_fitness"], "before %.2f setup %.2f" % (d.get("before_setup_s",0), d.get("setup_s",0)), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"), "peak", d.get("peak_host_memory_bytes"), d.get("peak_device_memory_bytes"))' $D/r7.json | tee -a $D/runs.txt
head -3 $D/r7.err; grep -i 'maximum resident' $D/r7.time
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf t.tgz t && rm -rf t
