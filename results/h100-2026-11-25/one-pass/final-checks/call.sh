#!/usr/bin/env bash
# GOM's group in one pass (fused) against three passes (base): equality at fixed seeds; GPU tests, selftest, sanitizers, ncu.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/g /tmp/inst
P=$B/pgomea-new
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1
src() { case $1 in G*) echo "--set C --name $1";; t100) echo "--instance /tmp/inst/t100.txt";; nk) echo "--instance /tmp/inst/nk.nk";; trap) echo "--instance /tmp/inst/trap.nk";; sat) echo "--instance /tmp/inst/sat.cnf";; esac; }
echo "== n = 16, cooperative: blocks per SM 1 and 2, one pass and three"
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
for g in G81 t100 trap; do for passes in one three; do for bps in 2 1; do
  PGOMEA_CUDA_GENERATION=cooperative PGOMEA_CUDA_GROUP_PASSES=$passes PGOMEA_GENERATION_BLOCKS_PER_SM=$bps timeout 60 $P bench throughput $(src $g) --backend cuda --population 16,64 --generations 5 > $OUT/g/bps-$g-$passes-$bps.txt 2>&1
  echo "$g $passes bps=$bps $(grep -E '\| parallel \|' $OUT/g/bps-$g-$passes-$bps.txt | awk -F'|' '{printf "n=%s %s [%s] | ", $5, $8, $4}' | sed 's/NVIDIA H100 80GB HBM3; //g')"
done; done; done
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs"; timeout 240 $B/gpu-test-new --test-threads=1 > $OUT/g/gpu-test.log 2>&1; grep -E "test result" $OUT/g/gpu-test.log
echo "== selftest"; timeout 240 $P selftest > $OUT/g/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/g/selftest.log | tail -3
for tool in memcheck synccheck; do for inst in "" "--instance /tmp/inst/trap.nk" "--set C --name G1"; do
  timeout 120 compute-sanitizer --tool $tool $P run $inst --algo parallel --backend cuda --max-evals 20000 > $OUT/g/cs-$tool-$(echo $inst | tr -dc a-zA-Z0-9).log 2>&1
  echo "$tool [$inst]: $(grep -E 'ERROR SUMMARY' $OUT/g/cs-$tool-*$(echo $inst | tr -dc a-zA-Z0-9).log | tail -1)"
done; done
for mode in cooperative by-solution; do for passes in one three; do
  PGOMEA_CUDA_GROUP_PASSES=$passes PGOMEA_CUDA_GENERATION=$mode timeout 150 compute-sanitizer --tool racecheck $P run --set C --name G1 --algo parallel --backend cuda --local-search off --max-evals 3000 > $OUT/g/cs-racecheck-$mode-$passes.log 2>&1
  echo "racecheck $mode $passes: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/g/cs-racecheck-$mode-$passes.log | tail -1)"
done; done
for passes in one three; do
  PGOMEA_CUDA_GROUP_PASSES=$passes timeout 120 compute-sanitizer --tool memcheck $P run --set C --name G81 --algo parallel --backend cuda --local-search off --max-evals 200000 > $OUT/g/cs-memcheck-G81-$passes.log 2>&1
  echo "memcheck G81 $passes: $(grep -E 'ERROR SUMMARY' $OUT/g/cs-memcheck-G81-$passes.log | tail -1)"
done
echo "== ncu G81 generation kernels"
for n in 16 256; do
  timeout 120 ncu --section SpeedOfLight -k regex:"pgomea_generation.*_pairwise$" --launch-count 1 $P bench throughput --set C --name G81 --backend cuda --population $n --generations 2 > $OUT/g/ncu-G81-$n.txt 2>&1
  grep -E 'pgomea_generation|Duration|Compute \(SM\) Throughput|Memory Throughput' $OUT/g/ncu-G81-$n.txt | head -8
done
cd $OUT && for f in g/fix-*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf g.tgz g && rm -rf g
