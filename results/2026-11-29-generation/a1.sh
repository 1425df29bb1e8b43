#!/usr/bin/env bash
# Lane unroll experiment: base (lanes 2 evaluations in flight), u4, u8; u4/u8 with and without
# .maxnreg 64 on the generation kernels. bench throughput on G81 and a 100^2 torus; equality runs.
set -u
R=$PWD; B=$R/.gpu/bin; chmod +x $B/*
W=/tmp/a1; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/info.txt; nproc >> $W/info.txt; date -u >> $W/info.txt
$B/pgomea-base generate torus --side 100 --seed 1 -o $W/t100.txt
for round in 1 2; do
for v in base u4 u4c u8 u8c; do
  bin=$B/pgomea-${v%c}; cap=""; [[ $v == *c ]] && cap=64
  for inst in $R/.gpu/inst/G81.txt $W/t100.txt; do
    echo "== $v round $round $(basename $inst)" >> $W/bench.txt
    env ${cap:+PGOMEA_EXP_MAXNREG=$cap} $bin bench throughput --instance $inst --backend cuda --population 16,32,64,256,1024 --generations 10 2>&1 | grep -v "^\s*$" >> $W/bench.txt
  done
done
done
date -u >> $W/info.txt
for v in base u4 u4c u8 u8c; do
  bin=$B/pgomea-${v%c}; cap=""; [[ $v == *c ]] && cap=64
  for inst in $R/.gpu/inst/G81.txt $R/.gpu/inst/G1.txt $W/t100.txt; do
    for ls in off initial; do
      env ${cap:+PGOMEA_EXP_MAXNREG=$cap} $bin run --instance $inst --algo parallel --backend cuda --local-search $ls --max-evals 200000 --seed 2 --json > $W/eq-$v-$(basename $inst .txt)-$ls.json 2>/dev/null
    done
  done
done
python3 - $W <<'PY'
import json,glob,sys,collections
g=collections.defaultdict(dict)
for f in glob.glob(sys.argv[1]+'/eq-*.json'):
    v,rest=f.split('/eq-')[1].split('-',1)
    try: d=json.load(open(f))
    except Exception as e: print(f,e); continue
    g[rest][v]=(d['best_fitness'],d['evaluations'],d['generations'],str(d.get('solution'))[:10**6])
for k,vs in sorted(g.items()):
    base=vs.get('base'); print(k, base[:3] if base else None, {v:(x==base) for v,x in vs.items()})
PY
date -u >> $W/info.txt
rm -f $W/eq-*.json $W/t100.txt
tar czf $OUT/a1.tgz -C /tmp a1
cat $W/info.txt
