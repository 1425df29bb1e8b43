#!/usr/bin/env bash
# GOM's group in one pass (fused) against three passes (base): time per generation and equality.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/f /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/f/gpu.txt; date -u >> $OUT/f/gpu.txt
for v in base fused64; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done  # PTX JIT warm-up
P=$B/pgomea-fused64
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1 || $P generate nk --help > $OUT/f/nkhelp.txt
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1 || $P generate trap --help > $OUT/f/traphelp.txt
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1 || $P generate sat --help > $OUT/f/sathelp.txt
ls -la /tmp/inst > $OUT/f/inst.txt
src() { case $1 in G*) echo "--set C --name $1";; t100) echo "--instance /tmp/inst/t100.txt";; nk) echo "--instance /tmp/inst/nk.nk";; trap) echo "--instance /tmp/inst/trap.nk";; sat) echo "--instance /tmp/inst/sat.cnf";; esac; }
echo "== bench throughput: s/generation (default way, then cooperative)"
for r in 1 2; do for v in base fused64; do for g in G81 G1 G55 t100 nk trap sat; do
  pops=16,256; [ $g = G81 ] && pops=16,256,1024
  modes=auto; case $g in G81|G1|t100) modes="auto cooperative";; esac
  for mode in $modes; do
    if [ $mode = auto ]; then E="PGOMEA_X=1"; else E="PGOMEA_CUDA_GENERATION=$mode"; fi
    env $E timeout 120 $B/pgomea-$v bench throughput $(src $g) --backend cuda --population $pops --generations 5 > $OUT/f/b-$g-$v-$mode-$r.txt 2>&1
    echo "$r $v $mode $g $(grep -E '^\| ' $OUT/f/b-$g-$v-$mode-$r.txt | tail -n +3 | awk -F'|' '{printf "n=%s %s | ", $5, $8}')"
  done
done; done; done
cd $OUT && tar czf f.tgz f && rm -rf f
