#!/usr/bin/env bash
# The scale the paper predicts larger speed-ups for: 2D tori of 10^4 to 10^6 vertices (even sides,
# weights 1..5, so the optimum is the total weight, proven), time to the optimum of serial GOMEA
# (one CPU core) and parallel GOMEA (CUDA), the paper's settings (and parallel with `run`'s
# defaults), with the peak host and device memory of each run.
#
#   benchmarks/tori_scaling.sh PGOMEA OUTDIR [SIDES] [PARALLEL_SECONDS] [SERIAL_SECONDS]
#
# SIDES defaults to "100 316 1000" (10^4, ~10^5, 10^6 vertices). Prints a table at the end; every
# run's JSON result is kept in OUTDIR.
set -uo pipefail
BIN=$1 OUT=$2 SIDES=${3:-100 316 1000} PT=${4:-60} ST=${5:-30}
mkdir -p "$OUT"
for side in $SIDES; do
    inst="$OUT/torus$side.txt"
    "$BIN" generate torus --side "$side" --seed 1 -o "$inst"
    opt=$("$BIN" info --instance "$inst" --linkage univariate --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_weight"])')
    for variant in "parallel-paper:--algo parallel --backend cuda --no-fi --local-search off:$PT" \
                   "parallel-default:--algo parallel --backend cuda:$PT" \
                   "serial-paper:--algo serial --fi --local-search off:$ST"; do
        IFS=: read -r name opts limit <<< "$variant"
        echo "[$(date +%T)] torus $side ($((side * side)) vertices), $name, limit $limit s" >&2
        # shellcheck disable=SC2086
        "$BIN" run --instance "$inst" $opts --target "$opt" --time-limit "$limit" --json -q \
            > "$OUT/torus$side-$name.json" 2> "$OUT/torus$side-$name.err"
    done
done
python3 - "$OUT" $SIDES <<'PY'
import json, sys
out, sides = sys.argv[1], sys.argv[2:]
print("| vertices | variant | time to the optimum (s) | best / optimum | generations | populations | peak host MiB | peak device MiB |")
print("|---:|---|---:|---|---:|---|---:|---:|")
for side in sides:
    for name in ("serial-paper", "parallel-paper", "parallel-default"):
        try:
            r = json.load(open(f"{out}/torus{side}-{name}.json"))
        except Exception as e:
            print(f"| {int(side)**2} | {name} | failed: {e} | | | | | |")
            continue
        t = f"{r['time_s']:.2f}" if r["reached_target"] else f"not reached in {r['time_s']:.0f}"
        mib = lambda b: f"{b / 2**20:.0f}" if b is not None else "-"
        print(f"| {r['variables']} | {name} | {t} | {r['best_fitness']} / {r['target']} | {r['generations']} | {r['populations']} | "
              f"{mib(r.get('peak_host_memory_bytes'))} | {mib(r.get('peak_device_memory_bytes'))} |")
PY
