#!/usr/bin/env bash
# Lazy kernel loading: the JIT's cost on a fresh machine, old against new; selftest; GPU tests.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpus.txt; nproc >> $OUT/gpus.txt; date -u >> $OUT/gpus.txt
ls -la ~/.nv 2>&1 >> $OUT/gpus.txt
G1=$PGOMEA_INSTANCES/gset/G1.txt
one() { # label binary instance env...
  local label=$1 bin=$2 inst=$3; shift 3
  local t0=$(date +%s.%N)
  env "$@" $bin run --instance $inst --algo parallel --backend cuda --max-evals 3000 --json --quiet > /tmp/j.json 2>/tmp/j.err
  local t1=$(date +%s.%N)
  echo "$label $(basename $inst) wall $(python3 -c "print(round($t1-$t0,3))") $(grep -o '"setup_s":[0-9.]*' /tmp/j.json) $(grep -o '"best_fitness":[-0-9]*' /tmp/j.json) $(grep -o '"backend":"[^"]*"' /tmp/j.json | head -1) $(tail -1 /tmp/j.err)"
}
{
echo "# the first run on this machine (empty JIT cache), new binary"
one new-first .gpu/bin/pgomea $G1 X=1
echo "# cache disabled (compiled every time), old then new, twice"
for r in 1 2; do
  for inst in $G1 .gpu/sat1000.cnf .gpu/nk1000.nk; do
    one old-nocache .gpu/bin/pgomea-old $inst CUDA_CACHE_DISABLE=1
    one new-nocache .gpu/bin/pgomea $inst CUDA_CACHE_DISABLE=1
  done
done
echo "# cache warm"
for inst in $G1 .gpu/sat1000.cnf .gpu/nk1000.nk; do
  one old-warm .gpu/bin/pgomea-old $inst X=1
  one new-warm .gpu/bin/pgomea $inst X=1
done
echo "# serial-style and FI: parallel with --fi (loads the FI kernels mid-run), cache disabled"
t0=$(date +%s.%N); CUDA_CACHE_DISABLE=1 .gpu/bin/pgomea run --instance $G1 --algo parallel --backend cuda --fi --max-evals 200000 --seed 2 --json --quiet > /tmp/fi-new.json; echo "new fi $(grep -o '"best_fitness":[-0-9]*' /tmp/fi-new.json) $(grep -o '"evaluations":[0-9.]*' /tmp/fi-new.json) $(grep -o '"generations":[0-9]*' /tmp/fi-new.json)"
.gpu/bin/pgomea-old run --instance $G1 --algo parallel --backend cuda --fi --max-evals 200000 --seed 2 --json --quiet > /tmp/fi-old.json; echo "old fi $(grep -o '"best_fitness":[-0-9]*' /tmp/fi-old.json) $(grep -o '"evaluations":[0-9.]*' /tmp/fi-old.json) $(grep -o '"generations":[0-9]*' /tmp/fi-old.json)"
cmp <(grep -o '"solution":"[01]*"' /tmp/fi-new.json) <(grep -o '"solution":"[01]*"' /tmp/fi-old.json) && echo "fi solutions equal"
} > $OUT/jit.txt 2>&1
.gpu/bin/pgomea selftest > $OUT/selftest.txt 2>&1; echo "selftest rc $?" >> $OUT/selftest.txt
mkdir -p target/release && cp .gpu/bin/pgomea target/release/pgomea
(cd /tmp && $R/.gpu/bin/gpu-tests --test-threads=1 > $OUT/gpu-tests.txt 2>&1; echo "rc $?" >> $OUT/gpu-tests.txt)
tail -3 $OUT/selftest.txt; grep "test result" $OUT/gpu-tests.txt
