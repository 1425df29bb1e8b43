#!/usr/bin/env bash
# Time of one partition mix on the GPU host: one after the other (seq) against four parallel passes (par).
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
D=$OUT/ab; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
S=$PWD/.gpu/bin/pgomea-seq; Q=$PWD/.gpu/bin/pgomea-par; chmod +x $S $Q
$Q generate torus --side 1000 --seed 1 -o /tmp/t1000.txt 2>&1 | tail -1
$Q run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
st() { python3 -c '
import sys,re
ms=[float(m.group(1)) for m in (re.match(r"mix ([\d.]+) ms",l) for l in open(sys.argv[1])) if m]
ms.sort(); n=len(ms)
print(sys.argv[2], "mixes", n, "median %.1f ms" % ms[n//2] if n else "", "max %.1f" % ms[-1] if n else "", "total %.2f s" % (sum(ms)/1e3))' $1 $2; }
for b in seq par; do B=$S; [ $b = par ] && B=$Q
  PGOMEA_PXDBG=1 $B run --instance /tmp/t1000.txt --algo parallel --backend cuda --anneal-only --partition-mixing --anneal-sweeps 5 --max-population 32 > /dev/null 2> $D/t1000-ctl-$b.err; st $D/t1000-ctl-$b.err t1000-ctl-$b
  PGOMEA_PXDBG=1 $B run --instance /tmp/t1000.txt --algo parallel --backend cuda --partition-mixing --time-limit 15 --json 2> $D/t1000-$b.err | python3 -c 'import json,sys; d=json.load(sys.stdin); print("best", d["best_fitness"], "gens", d["generations"], d["populations"])'; st $D/t1000-$b.err t1000-15s-$b
  PGOMEA_PXDBG=1 $B run --set C --name G81 --algo parallel --backend cuda --time-limit 10 --json 2> $D/G81-$b.err | python3 -c 'import json,sys; d=json.load(sys.stdin); print("best", d["best_fitness"], "gens", d["generations"], d["populations"])'; st $D/G81-$b.err G81-10s-$b
done 2>&1 | tee $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf ab.tgz ab && rm -rf ab
