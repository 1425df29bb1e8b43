#!/usr/bin/env bash
# Colours and group sizes of the FLT's linkage-model interaction graph, both colourings, for the
# Set B tori (instance i00 of every size) and the Set C graphs. Counts are deterministic (seed 1);
# the build times depend on the machine.
#   benchmarks/colouring_table.sh [PGOMEA [OUT.md]]
# PGOMEA defaults to target/release/pgomea; the table is printed and, given OUT.md, written there.
# Needs the instance data directory in $PGOMEA_INSTANCES (else ./instances) and python3.
set -euo pipefail
B=${1:-target/release/pgomea}
if [ $# -ge 2 ]; then
  mkdir -p "$(dirname "$2")"
  exec > >(tee "$2")
fi
echo "| set | instance | n | m | FLT sets | largest set | LMIG edges | colouring | colours | group min / median / max | FLT s | LMIG s | colouring s |"
echo "|---|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|"
rows=()
for n in 0000009 0000016 0000025 0000049 0000100 0000196 0000400 0000784 0001600; do rows+=("B n${n}i00"); done
for g in G1 G22 G55 G60 G65 G66 G72 G77 G81; do rows+=("C $g"); done
for r in "${rows[@]}"; do
  set -- $r
  for c in welsh-powell dsatur; do
    "$B" info --set "$1" --name "$2" --linkage flt --coloring "$c" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
cols = [sys.argv[1], d["instance"], d["vertices"], d["edges"], d["fos_sets"], d["fos_largest_set"], d["lmig_edges"],
        d["coloring"], d["colors"], "%d / %d / %d" % (d["group_size_min"], d["group_size_median"], d["group_size_max"]),
        "%.3f" % d["fos_build_s"], "%.3f" % d["lmig_build_s"], "%.3f" % d["coloring_s"]]
print("| " + " | ".join(str(c) for c in cols) + " |")' "$1"
  done
done
