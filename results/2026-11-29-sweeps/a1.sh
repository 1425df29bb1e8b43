#!/usr/bin/env bash
# Annealing alone (the control, --anneal-only) of one population, at equal work: fewer
# solutions with longer schedules against more with shorter ones, on G63, G67 and G23, three
# seeds. Fixed sweeps (no fitting to the clock: --time-limit 100000), so timing does not change
# the results; two runs at once on the one GPU.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=$OUT/a1; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
one() { # inst pop sweeps seed
  local n=$(basename ${1%.*})
  timeout 120 $B/pgomea-head run --instance $1 --algo parallel --backend cuda --anneal-only --anneal-growth 1 \
    --n-base $2 --max-population $2 --anneal-sweeps $3 --time-limit 100000 --seed $4 --json 2> $W/$n-$2-$3-$4.err \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print('$n $2 $3 $4', d['best_fitness'], round(d['time_s'],2), round(d['setup_s'],2))" >> $W/results.txt
}
for cfg in "G63 512 24000" "G63 256 48000" "G63 128 96000" "G63 64 192000" "G67 512 24000" "G67 256 48000" "G67 128 96000" "G67 64 192000" "G23 256 50000" "G23 64 200000" "G23 16 800000"; do
  set -- $cfg
  one $R/.gpu/inst/$1.txt $2 $3 1 & one $R/.gpu/inst/$1.txt $2 $3 2 & wait
  one $R/.gpu/inst/$1.txt $2 $3 3
  echo "$cfg done [$(el) s]" >> $W/info.txt
done
