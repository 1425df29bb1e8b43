#!/usr/bin/env bash
# The committed build (`new`): pgomea selftest with the data cases, compute-sanitizer memcheck and
# synccheck of GOM's generation kernels of every kind (cooperative and by solution), ncu of the
# cooperative one-pass kernel on G81 at n = 16, and the 10^6-vertex torus at 30 s, seeds 1 and 2.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B /tmp/inst; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
tar xJf $R/.gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
W=/tmp/b3; rm -rf $W; mkdir -p $W; P=$B/pgomea-new; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
timeout 150 $P selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
echo "selftest done [$(el) s]" >> $W/info.txt
$P generate nk --n 2000 --k 5 --seed 1 -o $W/nk2k.nk > /dev/null
$P generate sat --n 3000 --m 12750 --seed 1 -o $W/sat3k.cnf > /dev/null
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck synccheck; do
  for way in cooperative by-solution; do
    for inst in $R/.gpu/inst/G1.txt $W/nk2k.nk $W/sat3k.cnf; do
      tag=$tool-$way-$(basename ${inst%.*})
      PGOMEA_CUDA_GENERATION=$way timeout 60 $CS --tool $tool $P run --instance $inst --algo parallel --backend cuda --local-search off --max-evals 20000 --seed 3 > $W/cs-$tag.txt 2>&1
      echo "$tag: rc $? $(grep -E 'ERROR SUMMARY' $W/cs-$tag.txt | tail -1)" >> $W/sanitizer.txt
    done
  done
done
echo "sanitizer done [$(el) s]" >> $W/info.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
$NCU --kernel-name regex:generation_one_pass --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
  $P bench throughput --instance $R/.gpu/inst/G81.txt --backend cuda --population 16 --generations 3 > $W/ncu-g81-16.txt 2>&1
echo "ncu done [$(el) s]" >> $W/info.txt
$P generate torus --side 1000 --seed 1 -o /tmp/inst/t1000.txt > /dev/null 2>&1
for s in 2 1; do
  timeout 90 $P run --instance /tmp/inst/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --json > /tmp/t6-$s.json 2> $W/t6-$s.err
  python3 -c "import json; r=json.load(open('/tmp/t6-$s.json')); print('t6 seed $s', r['best_fitness'], round(100*r['best_fitness']/r['best_known'],4), r['reached_target'], r.get('time_to_target_s'), r['generations'], r['populations'], round(r['setup_s'],2), round(r['time_s'],2)); r.pop('solution',None); json.dump(r,open('$W/t6-$s.json','w'))" >> $W/torus.txt 2>&1
done
echo "torus done [$(el) s]" >> $W/info.txt
rm -f $W/nk2k.nk $W/sat3k.cnf
tar czf $OUT/b3.tgz -C /tmp b3
cat $W/info.txt; tail -2 $W/selftest.txt; cat $W/sanitizer.txt $W/torus.txt; grep -E "Duration|Registers|Block Limit Reg|Achieved Occ|Waves" $W/ncu-g81-16.txt
