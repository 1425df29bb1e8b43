#!/usr/bin/env bash
# The control at 60 s, seeds 2 and 3, on the four instances of call 1's 60 s runs.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
B=$R/.gpu/bin/pgomea
chmod +x $B .gpu/*.py benchmarks/*.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt; nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
W=/tmp/w4; mkdir -p $W
V=default,anneal-only,anneal-only-mix
C="$R/benchmarks/control.sh --bin $B --variants $V"
{
for c in gset-torus:3 sg3d:2 sg2d:1 nk:3; do
  n=${c%:*}; p=${c#*:}
  for seed in 2 3; do
    printf 'c60-%s-s%s\t180\t%s --classes %s --pick %s --time 60 --seeds 1 --seed-from %s --out %s/c60-%s-s%s > %s/c60-%s-s%s.out 2>&1\n' $n $seed "$C" $n $p $seed $W $n $seed $W $n $seed
  done
done
printf 'c60-nk-s1\t60\t%s --classes nk --pick 3 --time 60 --seeds 1 --seed-from 1 --variants default --out %s/c60-nk-s1 > %s/c60-nk-s1.out 2>&1\n' "$R/benchmarks/control.sh --bin $B" $W $W
} > $W/jobs.tsv
python3 .gpu/jobs.py $W/jobs.tsv 4 $W/logs 2>&1 | tee $OUT/jobs.log
f=$W/c60-runs.csv; first=1
for d in $W/c60-*/; do
  [ -f $d/runs.csv ] || continue
  if [ $first = 1 ]; then cat $d/runs.csv > $f; first=0; else tail -n +2 $d/runs.csv >> $f; fi
done
cp $f $OUT/c60-runs.csv
cd /tmp && tar czf $OUT/control60.tgz w4
