#!/usr/bin/env bash
# Checks of the committed build of section 40: self-test, tests/gpu.rs, compute-sanitizer.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/c7
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c7/host.txt
N=$B/pgomea-final
date -u +"checks %F %T UTC" >> $OUT/c7/host.txt
timeout 200 $N selftest > $OUT/c7/selftest.log 2>&1; echo "selftest exit $?"; tail -2 $OUT/c7/selftest.log
mkdir -p /work/main/target/release && cp $N /work/main/target/release/pgomea
timeout 200 $B/gpu-tests --test-threads=1 > $OUT/c7/gpu-test.log 2>&1; grep -E "test result|FAIL|panick" $OUT/c7/gpu-test.log | head -5
PGOMEA_CUDA_GENERATION=cooperative timeout 90 compute-sanitizer --tool memcheck $N run --set C --name G81 --algo parallel --backend cuda --local-search off --max-evals 20000 > $OUT/c7/cs-memcheck-G81.log 2>&1; echo "memcheck G81 $?"; tail -1 $OUT/c7/cs-memcheck-G81.log
PGOMEA_CUDA_GENERATION=cooperative timeout 90 compute-sanitizer --tool synccheck $N run --set C --name G81 --algo parallel --backend cuda --local-search off --max-evals 20000 > $OUT/c7/cs-synccheck-G81.log 2>&1; echo "synccheck G81 $?"; tail -1 $OUT/c7/cs-synccheck-G81.log
PGOMEA_CUDA_GENERATION=cooperative PGOMEA_CUDA_GROUP_PASSES=one timeout 100 compute-sanitizer --tool racecheck $N run --set C --name G1 --algo parallel --backend cuda --local-search off --max-evals 3000 > $OUT/c7/cs-racecheck-G1.log 2>&1; echo "racecheck G1 $?"; tail -1 $OUT/c7/cs-racecheck-G1.log
date -u +"end %F %T UTC" >> $OUT/c7/host.txt
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
