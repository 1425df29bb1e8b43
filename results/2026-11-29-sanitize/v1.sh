#!/usr/bin/env bash
# The head (464107e) on the GPU: selftest with the data cases, tests/gpu.rs, and
# compute-sanitizer (memcheck, synccheck, racecheck) of the annealed local search, which reads
# its entries in the sliced GPU form since sections 76-77 and 80 (the last sanitizer runs of the
# local search predate them), on every pairwise lattice, a random graph, NK and the offspring
# search; GOM's generations run too (--max-evals small).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/v1; rm -rf $W; mkdir -p $W; P=$B/pgomea-head; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate torus --side 100 --seed 1 -o $W/t100.txt > /dev/null
$P generate torus --dims 3 --side 15 --weights gaussian --seed 1 -o $W/ga15.txt > /dev/null
$P generate nk --n 2000 --k 5 --seed 1 -o $W/nk2k.nk > /dev/null
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
cs() { # tool tag args...
  local tool=$1 tag=$2; shift 2
  timeout 90 $CS --tool $tool $P run --algo parallel --backend cuda --anneal-sweeps 20 --seed 3 "$@" > $W/cs-$tool-$tag.txt 2>&1
  echo "$tool $tag: rc $? $(grep -E 'ERROR SUMMARY' $W/cs-$tool-$tag.txt | tail -1) | $(grep -E '^best fitness' $W/cs-$tool-$tag.txt)" >> $W/sanitizer.txt
}
for inst in $R/.gpu/inst/G1.txt $W/t100.txt $W/ga15.txt $W/nk2k.nk; do
  cs memcheck $(basename ${inst%.*}) --instance $inst --max-evals 3000
done
cs memcheck G1-offspring --instance $R/.gpu/inst/G1.txt --local-search offspring --max-evals 3000
echo "memcheck done [$(el) s]" >> $W/info.txt
for inst in $R/.gpu/inst/G1.txt $W/t100.txt; do
  cs synccheck $(basename ${inst%.*}) --instance $inst --max-evals 3000
  cs racecheck $(basename ${inst%.*}) --instance $inst --max-evals 3000
done
echo "sync/racecheck done [$(el) s]" >> $W/info.txt
rm -f $W/*.nk $W/t100.txt $W/ga15.txt
tar czf $OUT/v1.tgz -C /tmp v1
cat $W/info.txt $W/sanitizer.txt; tail -3 $W/selftest.txt; tail -3 $W/gpu-tests.txt
