#!/usr/bin/env bash
# Head checks (gpu tests, selftest) and the set-up phases of 3-SAT 10^6 by thread count.
set -u
P=$PWD/target/release/pgomea; chmod +x $P .gpu/bin/gpu-tests
D=$OUT/k; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git log -1 --format=%h 2>/dev/null; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
mkdir -p /work/main/target/release 2>/dev/null; [ -e /work/main/target/release/pgomea ] || cp $P /work/main/target/release/pgomea 2>/dev/null
(cd /tmp && timeout 240 $OLDPWD/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu-tests rc $?"; grep "test result" $D/gpu-tests.txt)
timeout 120 $P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -2 $D/selftest.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf 2>&1 | tail -1
for t in 16 8 4 2; do
  RAYON_NUM_THREADS=$t $P info --instance /tmp/s1e6.cnf --json 2>/dev/null | python3 -c '
import json,sys; d=json.load(sys.stdin); print(sys.argv[1], {k: d.get(k) for k in ("read_s","fos_build_s","coloring_s","layout_s","colors")})' $t
done | tee $D/threads.txt
$P run --instance /tmp/s1e6.cnf --algo parallel --backend cuda --json --trace $D/sat10.trace.csv 2> $D/sat10.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w")); print("sat10", d["best_fitness"], d.get("setup_s"), d.get("generations"), d.get("populations"))' $D/sat10.json
cat $D/sat10.err | tail -8
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf k.tgz k && rm -rf k
