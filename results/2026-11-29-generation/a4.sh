#!/usr/bin/env bash
# ncu of the cooperative one-pass generation kernel on G81 at n = 16 (9aee8a7's kernels): where its warps stall.
set -u
R=$PWD; B=/tmp/bin; mkdir -p $B; tar xJf $R/.gpu/bins2.txz -C $B ./pgomea-base 2>/dev/null || tar xJf $R/.gpu/bins2.txz -C $B; chmod +x $B/*
W=/tmp/a4; rm -rf $W; mkdir -p $W
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
$NCU --version | tail -1 > $W/info.txt; date -u >> $W/info.txt
$NCU --kernel-name regex:generation_one_pass --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
  $B/pgomea-base bench throughput --instance $R/.gpu/inst/G81.txt --backend cuda --population 16 --generations 3 > $W/ncu-g81-16.txt 2>&1
date -u >> $W/info.txt
tar czf $OUT/a4.tgz -C /tmp a4
cat $W/info.txt; grep -E "Duration|stalled" $W/ncu-g81-16.txt | sort -k3 -n -r | head -30
