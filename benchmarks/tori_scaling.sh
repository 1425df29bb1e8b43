#!/usr/bin/env bash
# The speed-up the paper conjectures for large sparse problems: 2D tori (even sides, weights 1..5,
# so the optimum is the total weight, proven, and the file states it), time to 99 %, 99.9 % and to
# the optimum of serial GOMEA (one CPU core) and parallel GOMEA on the GPU and on all CPU cores,
# each in the paper's variant (serial: FI; parallel: no FI; no local search, no partition mixing)
# and with `run`'s defaults; the set-up (reading, linkage model, colouring, layout) is given
# apart. Times count from the start of the command (set-up included), as --time-limit does; a run
# that did not get there gives "> limit".
#
#   benchmarks/tori_scaling.sh PGOMEA OUTDIR [SIDES] [SECONDS]
#
# SIDES defaults to "32 100 316 1000" (10^3 to 10^6 vertices), SECONDS (the limit of every run)
# to 20. Prints a table at the end; every run's JSON result and trace are kept in OUTDIR.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: benchmarks/tori_scaling.sh PGOMEA OUTDIR [SIDES] [SECONDS]" >&2; exit 2; }
BIN=$1 OUT=$2 SIDES=${3:-32 100 316 1000} LIMIT=${4:-20}
mkdir -p "$OUT"
VARIANTS=(
    "serial-paper:--algo serial --fi --local-search off --no-partition-mixing"
    "serial-default:--algo serial --threads 1"
    "gpu-paper:--algo parallel --backend cuda --no-fi --local-search off --no-partition-mixing"
    "gpu-default:--algo parallel --backend cuda"
    "cpu-paper:--algo parallel --backend cpu --no-fi --local-search off --no-partition-mixing"
    "cpu-default:--algo parallel --backend cpu"
)
for side in $SIDES; do
    inst="$OUT/torus$side.txt"
    "$BIN" generate torus --side "$side" --seed 1 -o "$inst" > /dev/null
    for variant in "${VARIANTS[@]}"; do
        IFS=: read -r name opts <<< "$variant"
        echo "[$(date +%T)] torus $side ($((side * side)) vertices), $name, limit $LIMIT s" >&2
        # shellcheck disable=SC2086
        "$BIN" run --instance "$inst" $opts --target best-known --time-limit "$LIMIT" --json -q \
            --trace "$OUT/torus$side-$name.csv" > "$OUT/torus$side-$name.json" 2> "$OUT/torus$side-$name.err"
    done
    rm -f "$inst"
done
python3 - "$OUT" "$LIMIT" $SIDES <<'PY'
import csv, json, sys
out, limit, sides = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
names = ["serial-paper", "serial-default", "gpu-paper", "gpu-default", "cpu-paper", "cpu-default"]
print("| vertices | variant | set-up s | to 99 % s | to 99.9 % s | to the optimum s | best / optimum | generations | populations |")
print("|---:|---|---:|---:|---:|---:|---|---:|---|")
for side in sides:
    for name in names:
        try:
            r = json.load(open(f"{out}/torus{side}-{name}.json"))
            rows = [(float(t), int(float(f))) for t, _, f in list(csv.reader(open(f"{out}/torus{side}-{name}.csv")))[1:]]
        except Exception as e:
            print(f"| {int(side)**2} | {name} | failed: {e} | | | | | | |")
            continue
        opt = r["target"]
        def first(share):
            hit = [t for t, f in rows if f >= share * opt]
            return f"{hit[0]:.2f}" if hit else f"> {r['time_s']:.0f}"
        print(f"| {r['variables']} | {name} | {r['setup_s']:.2f} | {first(0.99)} | {first(0.999)} | {first(1.0)} | "
              f"{r['best_fitness']} / {opt} | {r['generations']} | {r['populations']} |")
PY
