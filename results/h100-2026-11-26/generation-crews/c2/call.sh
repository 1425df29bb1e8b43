#!/usr/bin/env bash
# G81's generation at n = 16, 32, 64 taken apart: builds that skip the lane, warp or block crews'
# loops (or the whole pass) of every colour group, cooperative kernel, one pass. Timing only: the
# skipped sets make the populations differ from the full build's.
set -uo pipefail
mkdir -p /tmp/xb && tar xJf .gpu/xbin.tar.xz -C /tmp/xb && chmod +x /tmp/xb/*
export PGOMEA_INSTANCES=$PWD/.gpu/instances
mkdir -p $OUT/c2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u +"start %F %T UTC"; } > $OUT/c2/host.txt
/tmp/xb/pgomea-base run --time-limit 1 --algo parallel --backend cuda > /dev/null 2>&1
for round in 1 2; do
  for v in base x-none x-lanes x-warps x-blocks x-lw x-wb; do
    PGOMEA_CUDA_GENERATION=cooperative /tmp/xb/pgomea-$v bench throughput --set C --name G81 --backend cuda --population 16,32,64 --generations 10 2>/dev/null | grep '^| G81' | awk -F'|' -v l="$v" '{print l, $5, $8, $9}'
  done
done 2>&1 | tee $OUT/c2/parts.txt
date -u +"end %F %T UTC" >> $OUT/c2/host.txt
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
