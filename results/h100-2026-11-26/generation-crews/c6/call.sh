#!/usr/bin/env bash
# The committed build of section 40 (in the cooperative one-pass GOM kernel: lanes and warps
# spread over the grid's blocks, a group's lane pairs to warps where they fit the warps in 4
# rounds) against base (8581615): timing, fixed-seed equality, then the checks of call7.sh.
set -uo pipefail
export PGOMEA_INSTANCES=$PWD/.gpu/instances; B=$PWD/.gpu/bin; chmod +x $B/*
mkdir -p $OUT/c6/eq /tmp/g
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c6/host.txt
P=$B/pgomea-base; N=$B/pgomea-final
$P generate torus --side 100 --seed 1 -o /tmp/g/t100.txt >/dev/null
$P generate nk --n 2000 --k 5 --neighbourhood random --seed 1 -o /tmp/g/nk2000.nk >/dev/null
$P generate nk --n 50000 --k 5 --neighbourhood random --seed 1 -o /tmp/g/nk50000.nk >/dev/null
$P generate trap --k 5 --blocks 2000 --shuffle --seed 1 -o /tmp/g/trap.nk >/dev/null
$P generate sat --n 10000 --m 42600 --seed 1 -o /tmp/g/sat.cnf >/dev/null
$P generate sat --n 100000 --m 426000 --seed 1 -o /tmp/g/sat1e5.cnf >/dev/null
for v in base final; do $B/pgomea-$v run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1; done
b() {
  local v=$1 lab=$2 pops=$3; shift 3
  env "$@" $B/pgomea-$v bench throughput $INST --backend cuda --population $pops --generations 10 2>>$OUT/c6/bench.err | grep '^| ' | grep -v '| instance' | awk -F'|' -v l="$v $lab" '{print l, $5, $8, $9}'
}
for round in 1 2; do for v in base final; do
  INST="--set C --name G81" b $v G81 16,32,64,256,1024
  INST="--instance /tmp/g/t100.txt" b $v t100 16,64,256
  [ $round = 1 ] || continue
  INST="--set C --name G1" b $v G1 16,256
  INST="--instance /tmp/g/nk50000.nk" b $v nk50000 16
  INST="--instance /tmp/g/trap.nk" b $v trap 16,256
  INST="--instance /tmp/g/sat1e5.cnf" b $v sat1e5 16,256
done; done 2>&1 | tee $OUT/c6/bench.txt
date -u +"equality %F %T UTC" >> $OUT/c6/host.txt
eq() { # name inst way ls
  local name=$1 inst=$2 way=$3 ls=$4
  for v in base final; do
    PGOMEA_CUDA_GENERATION=$way timeout 60 $B/pgomea-$v run $inst --algo parallel --backend cuda --local-search $ls --max-evals 200000 --seed 2 --json --quiet 2>/dev/null \
      | python3 -c "import json,sys,hashlib; d=json.load(sys.stdin); print(d['best_fitness'], d['evaluations'], d['generations'], hashlib.sha1(str(d.get('solution')).encode()).hexdigest()[:12])" > $OUT/c6/eq/$name-$way-$ls-$v.txt
  done
  if cmp -s $OUT/c6/eq/$name-$way-$ls-base.txt $OUT/c6/eq/$name-$way-$ls-final.txt; then echo "equal $name $way $ls $(cat $OUT/c6/eq/$name-$way-$ls-final.txt)"; else echo "DIFFER $name $way $ls"; fi
}
for ls in initial off; do for way in cooperative graph; do
  eq G1 "--set C --name G1" $way $ls; eq G81 "--set C --name G81" $way $ls; eq t100 "--instance /tmp/g/t100.txt" $way $ls
  eq nk2000 "--instance /tmp/g/nk2000.nk" $way $ls; eq sat "--instance /tmp/g/sat.cnf" $way $ls; eq trap "--instance /tmp/g/trap.nk" $way $ls
done; done 2>&1 | tee $OUT/c6/equality.txt | grep -c equal
grep DIFFER $OUT/c6/equality.txt
date -u +"end %F %T UTC" >> $OUT/c6/host.txt
bash .gpu/call7.sh
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
