#!/usr/bin/env bash
# Two pgomea binaries side by side on the GPU machine, in one call: the self-test of each,
# compute-sanitizer (memcheck, racecheck, synccheck) on G1 and on an NK instance with the new
# binary, the same fixed-seed CUDA runs with both (their results must be equal), and
# `bench throughput` on G1, G55 and G81 at n = 16, 256, 1024, old and new alternating, twice.
#
#   benchmarks/gpu_old_new.sh OLD NEW OUTDIR
#
# Needs the instance data directory in $PGOMEA_INSTANCES. Writes every log and JSON file into
# OUTDIR and prints a table of seconds per generation (new / old) at the end.
set -uo pipefail
OLD=$1 NEW=$2 OUT=$3
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.csv" 2>&1
cat "$OUT/gpu.csv"

for b in old new; do
    bin=$OLD; [[ $b == new ]] && bin=$NEW
    log "selftest ($b)"
    "$bin" selftest > "$OUT/selftest-$b.log" 2>&1; echo "selftest $b: exit $? ($(tail -n 1 "$OUT/selftest-$b.log"))"
done

log "fixed-seed CUDA runs, old and new"
for case in "G1 20000 3" "G55 5000 5" "G81 3000 4"; do
    set -- $case
    for b in old new; do
        bin=$OLD; [[ $b == new ]] && bin=$NEW
        "$bin" run --set C --name "$1" --algo parallel --backend cuda --max-evals "$2" --seed "$3" --json -q > "$OUT/run-$1-$b.json" 2> "$OUT/run-$1-$b.err"
    done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
keys = ["best_fitness", "subfunction_evaluations", "gom_steps", "generations", "populations", "solution"]
for g in ["G1", "G55", "G81"]:
    a, b = (json.load(open(f"{out}/run-{g}-{x}.json")) for x in ("old", "new"))
    same = all(a[k] == b[k] for k in keys)
    print(f"same results {g}: {same} (best {a['best_fitness']} / {b['best_fitness']}, generations {a['generations']} / {b['generations']})")
PY

"$NEW" generate nk --n 2000 --k 5 --seed 1 -o "$OUT/nk2000.nk" > /dev/null
if command -v compute-sanitizer > /dev/null; then
    for tool in memcheck racecheck synccheck; do
        log "compute-sanitizer --tool $tool"
        compute-sanitizer --tool "$tool" "$NEW" run --set C --name G1 --algo parallel --backend cuda --max-evals 400 -q \
            > "$OUT/sanitizer-$tool-G1.log" 2>&1
        echo "$tool G1: exit $? :: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool-G1.log" | tail -n 1)"
        compute-sanitizer --tool "$tool" "$NEW" run --instance "$OUT/nk2000.nk" --algo parallel --backend cuda --max-evals 60 -q \
            > "$OUT/sanitizer-$tool-nk.log" 2>&1
        echo "$tool NK: exit $? :: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool-nk.log" | tail -n 1)"
    done
else
    echo "compute-sanitizer not found"
fi

for round in 1 2; do
    for g in G1 G55 G81; do
        for b in old new; do
            bin=$OLD; [[ $b == new ]] && bin=$NEW
            log "throughput $g $b round $round"
            "$bin" bench throughput --set C --name "$g" --backend cuda --population 16,256,1024 --generations 5 --json \
                > "$OUT/throughput-$g-$b-$round.json" 2> "$OUT/throughput-$g-$b-$round.err"
        done
    done
done
python3 - "$OUT" <<'PY'
import json, sys, statistics
out = sys.argv[1]
print("| instance | n | old s/gen (round 1, 2) | new s/gen (round 1, 2) | new / old (median of rounds) |")
print("|---|---:|---:|---:|---:|")
for g in ["G1", "G55", "G81"]:
    rows = {}
    for b in ("old", "new"):
        for r in (1, 2):
            for row in json.load(open(f"{out}/throughput-{g}-{b}-{r}.json")):
                rows.setdefault((row["population"], b), []).append(row["seconds_per_generation"])
    for n in (16, 256, 1024):
        o, w = rows[(n, "old")], rows[(n, "new")]
        ratio = statistics.median(w) / statistics.median(o)
        print(f"| {g} | {n} | {o[0]:.3e}, {o[1]:.3e} | {w[0]:.3e}, {w[1]:.3e} | {ratio:.3f} |")
PY
