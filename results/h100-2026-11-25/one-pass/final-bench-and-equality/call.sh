#!/usr/bin/env bash
# GOM's group in one pass (new) against three passes (base): time per generation and equality.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/d /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/d/gpu.txt; date -u >> $OUT/d/gpu.txt
for v in base new; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done  # PTX JIT warm-up
P=$B/pgomea-new
$P generate torus --side 100 --seed 1 -o /tmp/inst/t100.txt > /dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/inst/nk.nk > /dev/null 2>&1 || $P generate nk --help > $OUT/d/nkhelp.txt
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/inst/trap.nk > /dev/null 2>&1 || $P generate trap --help > $OUT/d/traphelp.txt
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/inst/sat.cnf > /dev/null 2>&1 || $P generate sat --help > $OUT/d/sathelp.txt
ls -la /tmp/inst > $OUT/d/inst.txt
src() { case $1 in G*) echo "--set C --name $1";; t100) echo "--instance /tmp/inst/t100.txt";; nk) echo "--instance /tmp/inst/nk.nk";; trap) echo "--instance /tmp/inst/trap.nk";; sat) echo "--instance /tmp/inst/sat.cnf";; esac; }
echo "== bench throughput: s/generation (default way, then cooperative)"
for r in 1; do for v in base new; do for g in G81 G1 G55 t100 nk trap sat; do
  pops=16,256; [ $g = G81 ] && pops=16,256,1024
  modes=auto; case $g in G81|t100) modes="auto cooperative";; esac
  for mode in $modes; do
    if [ $mode = auto ]; then E="PGOMEA_X=1"; else E="PGOMEA_CUDA_GENERATION=$mode"; fi
    env $E timeout 120 $B/pgomea-$v bench throughput $(src $g) --backend cuda --population $pops --generations 5 > $OUT/d/b-$g-$v-$mode-$r.txt 2>&1
    echo "$r $v $mode $g $(grep -E '\| parallel \|' $OUT/d/b-$g-$v-$mode-$r.txt | awk -F'|' '{printf "n=%s %s [%s] | ", $5, $8, $4}' | sed 's/NVIDIA H100 80GB HBM3; //g')"
  done
done; done; done
echo "== fixed seed: base against new (equal?)"
for g in G1 G81 t100 nk trap sat; do for mode in cooperative by-solution; do for extra in "--local-search off" ""; do
  tag=$g-$mode${extra:+-off}
  for v in base new; do
    PGOMEA_CUDA_GENERATION=$mode timeout 60 $B/pgomea-$v run $(src $g) --algo parallel --backend cuda $extra --max-evals 1000000 --seed 2 --json > $OUT/d/fix-$tag-$v.json 2>$OUT/d/fix-$tag-$v.err
  done
  python3 - $OUT/d/fix-$tag-base.json $OUT/d/fix-$tag-new.json "$tag" <<'PY'
import json,sys
try:
    a,b=[json.load(open(f)) for f in sys.argv[1:3]]
    k=lambda r:(r['best_fitness'],r['evaluations'],r['generations'],r['solution'])
    print(sys.argv[3], "equal" if k(a)==k(b) else "DIFFER", k(a)[:3], k(b)[:3], round(a['time_s'],2), round(b['time_s'],2))
except Exception as e: print(sys.argv[3], "ERROR", e)
PY
done; done; done
cd $OUT && for f in d/fix-*.json; do python3 -c "import json,sys; r=json.load(open('$f')); r.pop('solution',None); json.dump(r,open('$f','w'))" 2>/dev/null; done; tar czf d.tgz d && rm -rf d
