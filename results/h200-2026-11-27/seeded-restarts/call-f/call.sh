#!/usr/bin/env bash
# The review's build (kernels asked for by name at each launch): selftest and GPU tests.
set -u
R=$PWD
mkdir -p /tmp/inst && tar xJf .gpu/instances.tar.xz -C /tmp/inst
export PGOMEA_INSTANCES=/tmp/inst/instances
chmod +x .gpu/bin/*
W=/tmp/wF; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; date -u >> $W/gpus.txt
.gpu/bin/pgomea selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
mkdir -p target/release && cp .gpu/bin/pgomea target/release/pgomea
(cd /tmp && $R/.gpu/bin/gpu-tests --test-threads=1 > $W/gpu-tests.txt 2>&1; echo "rc $?" >> $W/gpu-tests.txt)
date -u >> $W/gpus.txt
tar czf $OUT/callF.tgz -C /tmp wF
cat $W/gpus.txt; tail -3 $W/selftest.txt; grep "test result" $W/gpu-tests.txt
