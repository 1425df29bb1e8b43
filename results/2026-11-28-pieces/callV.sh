#!/usr/bin/env bash
# The committed build: tests/gpu.rs and pgomea selftest.
set -u
R=$PWD
chmod +x .gpu/bin/*
W=/tmp/wV; rm -rf $W; mkdir -p $W /tmp/inst
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpus.txt; date -u >> $W/gpus.txt
tar xJf .gpu/instances.tar.xz -C /tmp/inst; export PGOMEA_INSTANCES=/tmp/inst/instances
mkdir -p target/release && cp .gpu/bin/pgomea target/release/pgomea
(cd /tmp && $R/.gpu/bin/gpu-tests --test-threads=1) > $W/gpu-tests.txt 2>&1; echo "gpu-tests rc $?" >> $W/gpu-tests.txt
timeout 120 .gpu/bin/pgomea selftest > $W/selftest.txt 2>&1; echo "selftest rc $?" >> $W/selftest.txt
date -u >> $W/gpus.txt
tar czf $OUT/callV.tgz -C /tmp wV
cat $W/gpus.txt; tail -4 $W/gpu-tests.txt; tail -6 $W/selftest.txt
