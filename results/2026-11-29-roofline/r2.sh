#!/usr/bin/env bash
# Issue 16 item 2 on the head (464107e): a 10^7-vertex sparse random graph (section 60's:
# `generate random --n 10000000 --m 22500000 --seed 1`, mean degree 4.5) run with the defaults
# for 60 s on the GPU: set-up, peak host and device memory, populations, within the device.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/r2; rm -rf $W; mkdir -p $W; P=$B/pgomea-head; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$P generate random --n 10000000 --m 22500000 --seed 1 -o /tmp/r1e7.txt > $W/generate.txt 2>&1
echo "generated [$(el) s]" >> $W/info.txt
timeout 150 $P run --instance /tmp/r1e7.txt --algo parallel --backend cuda --time-limit 60 --seed 1 --json > /tmp/r.json 2> $W/run.err
echo "run rc $? [$(el) s]" >> $W/info.txt
python3 -c "import json; d=json.load(open('/tmp/r.json')); d.pop('solution',None); json.dump(d,open('$W/run.json','w'),indent=1); print({k:d.get(k) for k in ['best_fitness','setup_s','before_setup_s','time_s','peak_host_memory_bytes','peak_device_memory_bytes','populations','generations','linkage','colors','note','stop_reason']})"
tar czf $OUT/r2.tgz -C /tmp r2
cat $W/info.txt; tail -5 $W/run.err
