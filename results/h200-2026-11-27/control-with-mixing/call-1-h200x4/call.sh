#!/usr/bin/env bash
# Control table with partition mixing: 10 s x 3 seeds and 60 s x 1 seed, on 4 GPUs.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin/pgomea
chmod +x $B .gpu/*.py benchmarks/*.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt
nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
W=/tmp/w; mkdir -p $W
V=default,anneal-only,anneal-only-mix
C="$R/benchmarks/control.sh --bin $B --variants $V"
{
for c in gset-random:180 gset-torus:150 sg2d:180 sg3d:180 nk:180 trap:40 maxsat:20; do
  n=${c%:*}; e=${c#*:}
  printf 'c10-%s\t%s\t%s --classes %s --time 10 --seeds 3 --out %s/c10-%s > %s/c10-%s.out 2>&1\n' $n $e "$C" $n $W $n $W $n
done
for c in gset-torus:3 sg3d:2 sg2d:1 nk:3; do
  n=${c%:*}; p=${c#*:}
  printf 'c60-%s\t180\t%s --classes %s --pick %s --time 60 --seeds 1 --out %s/c60-%s > %s/c60-%s.out 2>&1\n' $n "$C" $n $p $W $n $W $n
done
} > $W/jobs.tsv
cat $W/jobs.tsv
python3 .gpu/jobs.py $W/jobs.tsv 4 $W/logs 2>&1 | tee $OUT/jobs.log
for t in c10 c60; do
  f=$W/$t-runs.csv; first=1
  for d in $W/$t-*/; do
    [ -f $d/runs.csv ] || continue
    if [ $first = 1 ]; then cat $d/runs.csv > $f; first=0; else tail -n +2 $d/runs.csv >> $f; fi
  done
  $R/benchmarks/control.sh --summarise $f --variants $V --time ${t#c} > $OUT/$t-summary.txt 2>&1
done
cd /tmp && tar czf $OUT/control.tgz w
ls -la $OUT
