#!/usr/bin/env bash
# Partition mixing in four parallel passes (union-find): on against off where the default leaves it
# off (10^6 torus, 3-SAT, NK, traps, a 400^2 torus), G81 at 10 s, the control with mixing at 10^6.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; I=/tmp/inst/instances; export PGOMEA_INSTANCES=$I
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P .gpu/bin/gpu-tests
D=$OUT/aa; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
mkdir -p /work/main/target/release 2>/dev/null; [ -e /work/main/target/release/pgomea ] || cp $P /work/main/target/release/pgomea 2>/dev/null
(cd /tmp && timeout 200 $OLDPWD/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu-tests rc $?"; grep "test result" $D/gpu-tests.txt)
$P generate torus --side 1000 --seed 1 -o /tmp/t1000.txt 2>&1 | tail -1
$P generate torus --side 400 --seed 1 -o /tmp/t400.txt 2>&1 | tail -1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/s4.cnf 2>&1 | tail -1
$P generate nk --n 10000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk4.nk 2>&1 | tail -1
$P generate trap --k 5 --blocks 2000 --seed 1 -o /tmp/trap4.nk 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
r() { # label args...
  local label=$1; shift
  $P run "$@" --algo parallel --backend cuda --json --trace $D/$label.trace.csv 2> $D/$label.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], d.get("best_known"), d["reached_target"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), d.get("populations"), "evals %.0f" % d["evaluations"])' $D/$label.json $label
}
flag() { [ $1 = mix ] && echo --partition-mixing || echo --no-partition-mixing; }
{
for s in 1 2; do for m in mix no; do r t1000-$m-s$s --instance /tmp/t1000.txt --time-limit 30 --target best-known --seed $s $(flag $m); done; done
r t1000-ctlmix-s1 --instance /tmp/t1000.txt --time-limit 30 --target best-known --seed 1 --anneal-only --partition-mixing
for m in mix no; do r t400-$m --instance /tmp/t400.txt --time-limit 10 --target best-known --seed 1 $(flag $m); done
for s in 1 2; do for m in mix no; do r s4-$m-s$s --instance /tmp/s4.cnf --time-limit 10 --target best-known --seed $s $(flag $m); done; done
for m in mix no; do r nk4-$m --instance /tmp/nk4.nk --time-limit 10 --seed 1 $(flag $m); done
for s in 1 2; do for m in mix no; do r trap4-$m-s$s --instance /tmp/trap4.nk --time-limit 10 --target best-known --seed $s $(flag $m); done; done
for m in mix no; do r G81-$m-10 --set C --name G81 --time-limit 10 --target best-known --seed 1 $(flag $m); done
} 2>&1 | tee $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf aa.tgz aa && rm -rf aa
