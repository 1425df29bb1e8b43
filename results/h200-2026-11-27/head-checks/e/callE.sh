#!/usr/bin/env bash
# Head 3d94596 on a GPU: tests/gpu.rs, the self-test; set-up of planted 3-SAT 10^6 with the new FLT,
# and its run at the default limit; G81 generation time.
set -u
REPO=$PWD; P=$PWD/target/release/pgomea; chmod +x $P $REPO/.gpu/bin/*
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea; }
export PGOMEA_INSTANCES=$PWD/.gpu/instances
D=$OUT/e; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt
(cd /tmp && $REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu tests rc $?"); grep -E 'test result|FAILED|panicked|SKIPPED' $D/gpu-tests.txt | head
$P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -2 $D/selftest.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/s1e6.cnf > $D/gen.txt 2>&1
$P generate torus --side 1000 -o /tmp/t1000.txt >> $D/gen.txt 2>&1
for r in 1 2; do for f in s1e6.cnf t1000.txt; do
  $P info --instance /tmp/$f --json 2>/dev/null | python3 -c '
import json,sys; d=json.load(sys.stdin); print(sys.argv[1], {k:(round(v,2) if isinstance(v,float) else v) for k,v in d.items() if k.endswith("_s") or "rss" in k or k in ("colours","linkage")})' $f
done; done > $D/info.txt; cat $D/info.txt
for T in 10 15; do
  $P run --instance /tmp/s1e6.cnf --algo parallel --backend cuda --target best-known --time-limit $T --json 2> $D/sat-$T.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print("3-SAT 1e6 limit", sys.argv[2], "best", d["best_fitness"], "setup", round(d.get("setup_s",-1),2), "gens", d.get("generations"), "backend", d.get("backend"))' $D/sat-$T.json $T
done
for n in 16 256; do $P bench throughput --set G --name G81 --backend cuda --population $n --generations 10 2>&1 | tail -3; done > $D/g81.txt; cat $D/g81.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf e.tgz e && rm -rf e
