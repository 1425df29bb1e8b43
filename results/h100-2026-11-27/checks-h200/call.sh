#!/bin/bash
# The build of this session: GPU tests, self-test, and the set-up phases before (9b4c620) and after.
set -u
REPO=$PWD; NEW=$PWD/target/release/pgomea; OLD=$PWD/.gpu/bin/pgomea-old
[ "$REPO" = /work/main ] || { mkdir -p /work/main/target/release && cp $NEW /work/main/target/release/pgomea; }
W=/tmp/check; mkdir -p $W; cd $W
D=$OUT/check; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $D/gpu.txt; date -u > $D/start.txt
$NEW generate torus --side 1000 -o t1000.txt > /dev/null
$NEW generate torus --side 3162 -o t3162.txt > /dev/null
$NEW generate sat --n 1000000 --m 4260000 --seed 1 -o sat.cnf > /dev/null
$NEW selftest > $D/selftest.txt 2>&1; echo "selftest rc $? $(tail -1 $D/selftest.txt)"
$REPO/.gpu/bin/gpu-tests --test-threads=1 > $D/gpu-tests.txt 2>&1 || true
grep -E 'test result|FAILED|panicked' $D/gpu-tests.txt
for inst in "t1000.txt flt" "sat.cnf bflt:64" "t3162.txt flt"; do set -- $inst
  for b in OLD NEW OLD NEW; do
    ${!b} info --instance $1 --linkage $2 --json 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); print('$b', '$1', '$2', 'read', round(d['read_s'],2), 'fos', round(d['fos_build_s'],2), 'colouring', round(d['coloring_s'],2), 'layout', round(d['layout_s'],2), 'peak', round(d['peak_rss_bytes']/2**30,2), 'GiB', 'colors', d['colors'])" | tee -a $D/setup.txt
  done
done
date -u > $D/end.txt
cd $OUT && tar czf check.tgz check && rm -rf check
