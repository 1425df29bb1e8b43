#!/bin/bash
# A stop during set-up while the GPU is still being opened (the driver compiling the kernels):
# the build before the fix against the fix, the driver's compile cache off so every run compiles.
set -u
NEW=$PWD/target/release/pgomea; OLD=$PWD/.gpu/bin/pgomea-old
W=/tmp/abort; mkdir -p $W; cd $W
D=$OUT/abort; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $D/gpu.txt; date -u > $D/start.txt
$NEW generate trap --k 5 --blocks 200000 -o trap.nk > /dev/null
$NEW generate nk --n 1000000 --k 5 --neighbourhood random --seed 1 -o nkr.nk > /dev/null
$NEW generate sat --n 1000000 --m 4260000 --seed 1 -o sat.cnf > /dev/null
$NEW generate torus --side 100 -o t100.txt > /dev/null
# How long the open takes with the compile cache off: a small run's set-up.
for b in OLD NEW; do
  CUDA_CACHE_DISABLE=1 ${!b} run --instance t100.txt --algo parallel --backend cuda --time-limit 2 --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("'$b' t100 setup", round(d["setup_s"],2))'
done
for i in 1 2 3; do for b in OLD NEW; do for lim in 1 0.5; do
  s=$(date +%s.%N)
  CUDA_CACHE_DISABLE=1 ${!b} run --instance trap.nk --algo parallel --backend cuda --time-limit $lim > $D/$b-$i-$lim.txt 2>&1; rc=$?
  e=$(date +%s.%N)
  echo "$b round $i limit $lim: rc $rc, wall $(python3 -c "print(round($e-$s,2))") s, $(grep -m1 'algorithm' $D/$b-$i-$lim.txt)"
done; done; done
# Seed 2 of random NK (flt against the new default), and the new default on 3-SAT.
for lk in flt default; do
  /usr/bin/time -f '%e s wall' $NEW run --instance nkr.nk --algo parallel --backend cuda $([ $lk = flt ] && echo --linkage flt) \
    --time-limit 30 --seed 2 --trace $D/nkr-s2-$lk.csv --json 2>$D/nkr-s2-$lk.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"),indent=1)
print(sys.argv[1].split("/")[-1], d["linkage"], d["best_fitness"], "setup", round(d["setup_s"],2), "gens", d["generations"], "colors", d["colors"])' $D/nkr-s2-$lk.json
done
$NEW run --instance sat.cnf --algo parallel --backend cuda --time-limit 30 --target best-known --trace $D/sat-default.csv --json 2>$D/sat-default.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"),indent=1)
print("sat default", d["linkage"], d["best_fitness"], "setup", round(d["setup_s"],2), "gens", d["generations"], "colors", d["colors"], d["config"].get("linkage_chosen"))' $D/sat-default.json
date -u > $D/end.txt
cd $OUT && tar czf abort.tgz abort && rm -rf abort
