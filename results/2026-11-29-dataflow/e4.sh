#!/usr/bin/env bash
# Issue 16's goals at 10^6 and 10^7 vertices after the previous session's local-search entries
# (12 bytes an entry uploaded, the GPU's slices built beside the host's): the 10^7 torus at 120 s
# (set-up <= 40 s, peak host memory <= 16 GiB, 99.5 % within 120 s), ad08914 (old, before those
# changes) then the head; the 10^6 torus at 30 s (its optimum within 30 s), head, seeds 1 and 2.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins.txz -C $B; chmod +x $B/*
W=/tmp/e4; rm -rf $W; mkdir -p $W; T0=$(date +%s); el() { echo $(( $(date +%s)-T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; date -u >> $W/info.txt
$B/pgomea-head generate torus --side 3162 --seed 1 -o /tmp/t3162.txt > $W/gen7.txt 2>&1
$B/pgomea-head generate torus --side 1000 --seed 1 -o /tmp/t1000.txt > $W/gen6.txt 2>&1
echo "generated [$(el) s]" >> $W/info.txt
for v in old head; do
  timeout 200 $B/pgomea-$v run --instance /tmp/t3162.txt --algo parallel --backend cuda --time-limit 120 --target best-known --seed 1 --trace $W/t7-$v.csv --json > $W/t7-$v.json 2> $W/t7-$v.err
  echo "t7 $v rc $? [$(el) s]" >> $W/info.txt
done
for s in 1 2; do
  timeout 60 $B/pgomea-head run --instance /tmp/t1000.txt --algo parallel --backend cuda --time-limit 30 --target best-known --seed $s --trace $W/t6-head-$s.csv --json > $W/t6-head-$s.json 2> $W/t6-head-$s.err
  echo "t6 seed $s rc $? [$(el) s]" >> $W/info.txt
done
date -u >> $W/info.txt
python3 - $W > $W/summary.txt <<'PY'
import json,glob,sys,csv,os
for f in sorted(glob.glob(sys.argv[1]+'/t*.json')):
    try: d=json.load(open(f))
    except Exception as e: print(f, 'no json', e); continue
    opt=d.get('best_known'); tr=f[:-5]+'.csv'; first={}
    if os.path.exists(tr) and opt:
        for row in csv.reader(open(tr)):
            try: t,ev,b=float(row[0]),row[1],int(row[2])
            except: continue
            for q in (0.99,0.995,0.999,1.0):
                if b>=q*opt and q not in first: first[q]=t
    print(os.path.basename(f), d['best_fitness'], opt, '%.4f %%'%(100*d['best_fitness']/opt) if opt else '', 'setup %.1f s'%d['setup_s'], 'host %.2f GiB'%(d['peak_host_memory_bytes']/2**30), 'device %s'%(round(d['peak_device_memory_bytes']/2**30,2) if d.get('peak_device_memory_bytes') else None), 'time %.1f'%d['time_s'], 'first', {k:round(v,1) for k,v in first.items()}, d['stop_reason'], d['populations'])
PY
for f in $W/*.json; do python3 -c "import json,sys; d=json.load(open('$f')); d.pop('solution',None); json.dump(d,open('$f','w'))" 2>/dev/null; done
tar czf $OUT/e4.tgz -C /tmp e4
cat $W/info.txt $W/summary.txt
