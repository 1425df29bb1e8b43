#!/usr/bin/env bash
# The degree-ordered GPU form of the local search's entries (f7ce872, head 76fbdde) on the GPU:
# selftest, tests/gpu.rs, compute-sanitizer memcheck where the order changes most (G63's hubs, a
# random graph), and fixed-seed runs (fixed sweeps and evaluations, no clock) of the head against
# 464107e, whose device code is the same: equal flips give equal results. Then the time fit of
# the annealing (pgomea-pace: growth measured from the last two sizes) against the head on G63,
# 60 s, two seeds, one run at a time.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/c1; rm -rf $W; mkdir -p $W; P=$B/pgomea-head; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp $P target/release/pgomea
(cd /tmp && timeout 150 $B/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
echo "selftest, gpu tests done [$(el) s]" >> $W/info.txt
$P generate random --n 100000 --m 300000 --seed 1 -o $W/r1e5.txt > /dev/null
$P generate sat --n 20000 --m 84000 --seed 1 -o $W/s20k.cnf > /dev/null
$P generate torus --dims 3 --side 15 --min-weight -1000000 --max-weight 1000000 --seed 1 -o $W/ga15.txt > /dev/null
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for inst in $R/.gpu/inst/G63.txt $W/r1e5.txt; do
  tag=$(basename ${inst%.*})
  timeout 120 $CS --tool memcheck $P run --instance $inst --algo parallel --backend cuda --anneal-sweeps 20 --seed 3 --max-evals 3000 > $W/cs-$tag.txt 2>&1
  echo "memcheck $tag: rc $? $(grep -E 'ERROR SUMMARY' $W/cs-$tag.txt | tail -1) | $(grep -E '^best fitness' $W/cs-$tag.txt)" >> $W/sanitizer.txt
done
echo "memcheck done [$(el) s]" >> $W/info.txt
summ() { python3 -c "import json,hashlib; d=json.load(open('$W/r.json')); print(d['best_fitness'], d['evaluations'], d['generations'], hashlib.sha1(str(d['solution']).encode()).hexdigest()[:12], round(d['time_s'],2))" 2>/dev/null || echo failed; }
for inst in $R/.gpu/inst/G63.txt $R/.gpu/inst/G35.txt $R/.gpu/inst/G23.txt $R/.gpu/inst/G81.txt $W/r1e5.txt $W/s20k.cnf $W/ga15.txt; do
  for s in 1 2; do
    for v in old head; do
      timeout 30 $B/pgomea-$v run --instance $inst --algo parallel --backend cuda --anneal-sweeps 300 --max-evals 100000 --seed $s --json > $W/r.json 2> $W/err.txt
      echo "$(basename $inst) seed $s $v: $(summ)" >> $W/same.txt
    done
  done
done
echo "fixed-seed done [$(el) s]" >> $W/info.txt
for s in 1 2; do
  [ $(el) -gt 460 ] && break
  for v in head pace; do
    timeout 75 $B/pgomea-$v run --instance $R/.gpu/inst/G63.txt --time-limit 60 --seed $s --json > $W/r.json 2> $W/G63-$v-$s.err
    echo "G63 60 s seed $s $v: $(summ) | $(grep -c 'annealing fitted' $W/G63-$v-$s.err) fitted" >> $W/pace.txt
  done
done
echo "pace done [$(el) s]" >> $W/info.txt
rm -f $W/r.json $W/*.txt.big $W/r1e5.txt $W/s20k.cnf $W/ga15.txt
tar czf $OUT/c1.tgz -C /tmp c1
cat $W/info.txt $W/sanitizer.txt $W/same.txt $W/pace.txt; tail -3 $W/selftest.txt; tail -3 $W/gpu-tests.txt
