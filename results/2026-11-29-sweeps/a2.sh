#!/usr/bin/env bash
# Annealing alone (the control, --anneal-only) of one population at equal work on G63 and G67:
# fewer solutions with longer schedules against more with shorter ones, two seeds. Fixed sweeps
# (no fitting to the clock: --time-limit 100000), one run at a time (call a1 ran two at once on
# the GPU, which slowed both, and its files did not come back).
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/a2; rm -rf $W; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
for cfg in "G63 512 24000" "G63 256 48000" "G63 128 96000" "G63 64 192000" "G67 512 24000" "G67 256 48000" "G67 64 192000"; do
  set -- $cfg
  for s in 1 2; do
    timeout 60 $B/pgomea-head run --instance $R/.gpu/inst/$1.txt --algo parallel --backend cuda --anneal-only --anneal-growth 1 \
      --n-base $2 --max-population $2 --anneal-sweeps $3 --time-limit 100000 --seed $s --json 2> $W/$1-$2-$3-$s.err > $W/r.json
    python3 -c "import json,sys; d=json.load(open('$W/r.json')); print('$1 $2 $3 $s', d['best_fitness'], round(d['time_s'],2))" >> $W/results.txt 2>/dev/null || echo "$1 $2 $3 $s failed" >> $W/results.txt
  done
  echo "$cfg done [$(el) s]" >> $W/info.txt
  [ $(el) -gt 400 ] && break
done
rm -f $W/r.json; tar czf $OUT/a2.tgz -C /tmp a2
cat $W/info.txt $W/results.txt
