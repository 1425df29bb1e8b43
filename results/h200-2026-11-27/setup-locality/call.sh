#!/usr/bin/env bash
# Head checks (gpu tests, selftest with the instance sets), set-up before/after (dc870e4 vs head) on
# 10^6-variable instances, colouring breakdown (debug build), 3-SAT 10^6 at 10 s, 3x10^5 defaults.
set -u
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst; I=/tmp/inst/instances
P=$PWD/.gpu/bin/pgomea-new; H=$PWD/.gpu/bin/pgomea-head; G=$PWD/.gpu/bin/pgomea-dbg
chmod +x $P $H $G .gpu/bin/gpu-tests
D=$OUT/s; mkdir -p $D
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $D/host.txt; cat $D/host.txt
mkdir -p /work/main/target/release 2>/dev/null; [ -e /work/main/target/release/pgomea ] || cp $P /work/main/target/release/pgomea 2>/dev/null
(cd /tmp && PGOMEA_INSTANCES=$I timeout 240 $OLDPWD/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1; echo "gpu-tests rc $?"; grep "test result" $D/gpu-tests.txt)
PGOMEA_INSTANCES=$I timeout 180 $P selftest > $D/selftest.txt 2>&1; echo "selftest rc $?"; tail -3 $D/selftest.txt
$P generate sat --n 1000000 --m 4260000 --seed 1 -o /tmp/sat.cnf 2>&1 | tail -1
$P generate nk --n 1000000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk.nk 2>&1 | tail -1
$P generate random --n 1000000 --m 2250000 --seed 1 -o /tmp/rnd.txt 2>&1 | tail -1
$P generate torus --side 1000 --seed 1 -o /tmp/tor.txt 2>&1 | tail -1
info() { # label binary instance
  $2 info --instance $3 --json 2>/dev/null | python3 -c '
import json,sys; d=json.load(sys.stdin)
def walk(d,o):
  for k,v in d.items():
    if isinstance(v,dict): walk(v,o)
    elif k.endswith("_s") or k in ("colors","num_colors","groups"): o[k]=v
  return o
print(sys.argv[1], walk(d,{}))' $1
}
for r in 1 2; do for i in sat nk rnd tor; do f=/tmp/$i.cnf; [ $i = nk ] && f=/tmp/nk.nk; [ $i = rnd ] && f=/tmp/rnd.txt; [ $i = tor ] && f=/tmp/tor.txt
  info "$i head r$r" $H $f; info "$i new r$r" $P $f
  [ $i != sat ] && [ $r = 2 ] && break
done; done 2>&1 | tee $D/setup.txt
for v in "" PGOMEA_LOCKED=1; do echo "== dbg 16 threads $v"; env $v PGOMEA_DBG=1 $G info --instance /tmp/sat.cnf --json 2>&1 >/dev/null | grep DBG; done 2>&1 | tee $D/dbg.txt
echo "== dbg 1 thread"; PGOMEA_DBG=1 RAYON_NUM_THREADS=1 $G info --instance /tmp/sat.cnf --json 2>&1 >/dev/null | grep DBG | tee -a $D/dbg.txt
$P run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
one() { # name binary instance seed [args]
  local n=$1 b=$2 f=$3 s=$4; shift 4
  $b run --instance $f --algo parallel --backend cuda --seed $s --json --trace $D/$n.trace.csv "$@" 2> $D/$n.err | python3 -c '
import json,sys; d=json.load(sys.stdin); d.pop("solution",None); json.dump(d,open(sys.argv[1],"w"))
print(sys.argv[2], d["best_fitness"], "before %.2f setup %.2f" % (d.get("before_setup_s",0), d.get("setup_s",0)), "t %.2f" % d["time_s"], "gens", d.get("generations"), "pops", d.get("populations"))' $D/$n.json $n
}
for s in 1 2; do one sat10-new-s$s $P /tmp/sat.cnf $s; done 2>&1 | tee $D/runs.txt
grep -h 'linkage\|time ' $D/sat10-new-s1.err | head -5
$P generate sat --n 300000 --m 1278000 --seed 1 -o /tmp/sat3.cnf 2>&1 | tail -1
$P generate nk --n 300000 --k 5 --neighbourhood random --seed 1 -o /tmp/nk3.nk 2>&1 | tail -1
$P generate random --n 300000 --m 675000 --seed 1 -o /tmp/rnd3.txt 2>&1 | tail -1
for i in sat3.cnf nk3.nk rnd3.txt; do for L in flt bflt:16; do one ${i%%.*}-${L/:/} $P /tmp/$i 1 --time-limit 10 --linkage $L; done; done 2>&1 | tee -a $D/runs.txt
date -u +"end %F %T UTC" >> $D/host.txt
cd $OUT && tar czf s.tgz s && rm -rf s
