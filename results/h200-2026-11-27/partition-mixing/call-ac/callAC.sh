#!/usr/bin/env bash
# Final build: tests/gpu.rs, selftest; partition mixing between 10^5 and 10^6 vertices (tori of
# 3x10^5 and 5x10^5, on against off); second seeds at 60 s on G72 and G36.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; I=/tmp/inst/instances; export PGOMEA_INSTANCES=$I
P=$PWD/.gpu/bin/pgomea-new; chmod +x $P .gpu/bin/gpu-tests
D=$OUT/ac; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
mkdir -p /work/main/target/release 2>/dev/null; [ -e /work/main/target/release/pgomea ] || cp $P /work/main/target/release/pgomea 2>/dev/null
(cd /tmp && timeout 200 $OLDPWD/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu-tests rc $?"; grep "test result" $D/gpu-tests.txt)
timeout 120 $P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -2 $D/selftest.txt
$P generate torus --side 548 --seed 1 -o /tmp/t548.txt 2>&1 | tail -1
$P generate torus --side 708 --seed 1 -o /tmp/t708.txt 2>&1 | tail -1
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
r() { local label=$1; shift
  $P run "$@" --algo parallel --backend cuda --json --trace $D/$label.trace.csv 2> $D/$label.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], d.get("best_known"), d["reached_target"], "setup %.2f" % d.get("setup_s",0), "t %.2f" % d["time_s"], "gens", d.get("generations"), d.get("populations"))' $D/$label.json $label; }
flag() { [ $1 = mix ] && echo --partition-mixing || echo --no-partition-mixing; }
{
for t in t548 t708; do for m in mix no; do r $t-$m --instance /tmp/$t.txt --time-limit 20 --target best-known --seed 1 $(flag $m); done; done
r G72-60-s2 --set C --name G72 --time-limit 60 --target best-known --seed 2
r G36-60-s2 --set G --name G36 --time-limit 60 --target best-known --seed 2
} 2>&1 | tee $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf ac.tgz ac && rm -rf ac
