#!/usr/bin/env bash
# The review build (search colours in one helper): GPU tests, selftest, synccheck/racecheck of the search.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/r; P=$B/pgomea-rev
nvidia-smi --query-gpu=name --format=csv > $OUT/r/gpu.txt; date -u >> $OUT/r/gpu.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
mkdir -p /work/main/target/release && cp $P /work/main/target/release/pgomea
echo "== tests/gpu.rs"; timeout 240 $B/gpu-test-rev --test-threads=1 > $OUT/r/gpu-test.log 2>&1; grep -E "test result" $OUT/r/gpu-test.log
echo "== selftest"; timeout 240 $P selftest > $OUT/r/selftest.log 2>&1; echo "exit $?"; grep -E "FAIL|passed|every kernel" $OUT/r/selftest.log | tail -3
for mode in cooperative by-solution; do
  PGOMEA_CUDA_GENERATION=$mode timeout 100 compute-sanitizer --tool synccheck $P run --set C --name G1 --algo parallel --backend cuda --max-evals 20000 > $OUT/r/cs-synccheck-$mode.log 2>&1
  echo "synccheck $mode: $(grep -E 'ERROR SUMMARY' $OUT/r/cs-synccheck-$mode.log | tail -1)"
done
cd $OUT && tar czf r.tgz r && rm -rf r
