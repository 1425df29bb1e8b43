#!/usr/bin/env bash
# The problems beyond Max-Cut at GPU sizes: time to the optimum of serial GOMEA (one core) and of
# parallel GOMEA on the GPU (CUDA backend), per kind:
#   sat    satisfiable random 3-SAT of SATLIB's uf250 size (250 variables, 1,065 clauses), from
#          pgomea's own seeded generator with a planted assignment; optimum = 1,065;
#   trap   concatenated deceptive traps, k = 5, 2,000 and 10,000 blocks (10^4 and 5 x 10^4
#          variables), blocks a seeded random assignment (--shuffle); optimum = n (all ones);
#   nk     adjacent NK landscape, n = 10^4, K = 3 (NK_K); optimum exact (dynamic programming).
#          With K = 5 (or 4) serial GOMEA did not reach the optimum of n = 10^4 in 120 s (60 s) on
#          the 2-core development machine, so the default keeps to what fits the budget.
# The instances run in that order (the quick ones first leave more of the budget to the large).
# Every instance is generated here by the pgomea binary (nothing is downloaded). Each run is its
# own process, one at a time: `pgomea run --instance F --algo serial|parallel [--backend cuda]
# --linkage flt --seed S --target OPT --time-limit T --json --quiet`; time to the optimum is
# pgomea's own clock (`time_s`: after reading the file; model build, GPU upload and populations
# included). The table at the end gives, per instance and algorithm, the runs that reached the
# optimum, the median time (a run that did not reach it counts as infinite) and the ratio serial /
# parallel of the medians.
#
# Needs: the pgomea release binary (no Rust), python3 (standard library only) for the table, a
# CUDA GPU. The runs share a budget of BUDGET seconds (default 400): each run may take at most
# LIMIT seconds (default 60) and at most its share of what is left of the budget, so the whole
# script ends in under 8 minutes whatever the machine (a run that hits its limit is "not reached",
# its limit a lower bound of its time to the optimum).
#
# Usage: benchmarks/problems_gpu.sh [OUT_DIR]
#   PGOMEA=path/to/pgomea (default: target/release/pgomea of this repository)
#   SEEDS=3 LIMIT=60 BUDGET=400 (seeds 1..SEEDS; seconds), NK_K=3, BACKEND=cuda (cpu: without a GPU),
#   SIZES=small (tiny instances, to check the script on any machine)
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${PGOMEA:-$REPO/target/release/pgomea}"
SEEDS="${SEEDS:-3}"
LIMIT="${LIMIT:-60}"
BUDGET="${BUDGET:-400}"
BACKEND="${BACKEND:-cuda}"
OUT="${1:-problems_gpu_out}"

[ -x "$BIN" ] || { echo "problems_gpu.sh: no pgomea binary at $BIN (set PGOMEA=...)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "problems_gpu.sh: python3 is needed for the table" >&2; exit 2; }
mkdir -p "$OUT"
RUNS="$OUT/runs.jsonl"
: > "$RUNS"

if [ "${SIZES:-}" = small ]; then
    TRAP_BLOCKS=(40 200); NK_N=500; SAT_N=60; SAT_M=255
else
    TRAP_BLOCKS=(2000 10000); NK_N=10000; SAT_N=250; SAT_M=1065
fi
NK_K="${NK_K:-3}"

echo "problems_gpu.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(nproc) CPUs"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
fi
echo "binary: $BIN (sha256 $(sha256sum "$BIN" | cut -c1-12)); seeds 1..$SEEDS; at most $LIMIT s per run and $BUDGET s in all; parallel on $BACKEND"

# Instances: name, file, optimum.
INSTANCES=()
trap_instance() {
    local b=$1 f="$OUT/trap-k5-b$1.nk" opt
    opt=$("$BIN" generate trap --k 5 --blocks "$b" --shuffle --seed 1 -o "$f" | awk '{print $2}')
    INSTANCES+=("trap-k5-n$((5 * b))-shuffled $f $opt")
}
f="$OUT/sat3-n$SAT_N-m$SAT_M.cnf"
opt=$("$BIN" generate sat --n "$SAT_N" --m "$SAT_M" --seed 1 -o "$f" | awk '{print $2}')
INSTANCES+=("sat3-n$SAT_N-m$SAT_M-planted $f $opt")
trap_instance "${TRAP_BLOCKS[0]}"
f="$OUT/nk-n$NK_N-k$NK_K.nk"
opt=$("$BIN" generate nk --n "$NK_N" --k "$NK_K" --seed 1 -o "$f" | awk '{print $2}')
INSTANCES+=("nk-n$NK_N-k$NK_K-adjacent $f $opt")
trap_instance "${TRAP_BLOCKS[1]}"

start=$(date +%s)
left=$(( ${#INSTANCES[@]} * SEEDS * 2 ))
for inst in "${INSTANCES[@]}"; do
    read -r name file opt <<<"$inst"
    for seed in $(seq 1 "$SEEDS"); do
        for algo in serial parallel; do
            extra=()
            # Serial GOMEA on one core (its annealing would take every core otherwise).
            if [ "$algo" = parallel ]; then extra=(--backend "$BACKEND"); else extra=(--threads 1); fi
            # This run's share of the budget left (at least 1 s), at most LIMIT.
            share=$(( (BUDGET - ($(date +%s) - start)) / left ))
            limit=$(( share < LIMIT ? share : LIMIT ))
            limit=$(( limit < 1 ? 1 : limit ))
            left=$(( left - 1 ))
            line=$("$BIN" run --instance "$file" --algo "$algo" "${extra[@]}" --linkage flt --seed "$seed" \
                --target "$opt" --time-limit "$limit" --json --quiet 2>"$OUT/last.err") || {
                echo "FAILED: $name $algo seed $seed: $(tail -3 "$OUT/last.err")" >&2
                line='{"failed": true}'
            }
            printf '%s\n' "$line" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
d.update(name=sys.argv[1], algo=sys.argv[2], seed=int(sys.argv[3]), optimum=int(sys.argv[4]), limit_s=int(sys.argv[5]))
print(json.dumps(d))' "$name" "$algo" "$seed" "$opt" "$limit" >>"$RUNS"
            echo "[$(( $(date +%s) - start )) s] $name $algo seed $seed: $(tail -1 "$RUNS" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("failed" if d.get("failed") else "%s of %s in %.3f s on %s" % (d["best_fitness"], d["optimum"], d["time_s"], d["backend"]))')"
        done
    done
done

echo "runs took $(( $(date +%s) - start )) s"
python3 - "$RUNS" <<'EOF'
import json, math, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]

def median_time(rs):
    t = sorted(r["time_s"] if not r.get("failed") and r["reached_target"] else math.inf for r in rs)
    k = len(t)
    if k == 0:
        return math.inf
    if k % 2:
        return t[k // 2]
    a, b = t[k // 2 - 1], t[k // 2]
    return math.inf if math.isinf(b) else (a + b) / 2

names = list(dict.fromkeys(r["name"] for r in runs))
print()
print("| instance | variables | subfunctions | optimum | algorithm (backend) | reached | median time to optimum (s) | median evaluations | serial / parallel |")
print("|---|---:|---:|---:|---|---:|---:|---:|---:|")
for name in names:
    med = {}
    for algo in ("serial", "parallel"):
        rs = [r for r in runs if r["name"] == name and r["algo"] == algo]
        ok = [r for r in rs if not r.get("failed")]
        reached = [r for r in ok if r["reached_target"]]
        med[algo] = median_time(rs)
        evals = statistics.median([r["evaluations"] for r in reached]) if len(reached) * 2 > len(rs) else None
        first = ok[0] if ok else {}
        # An unreached run needed more than its limit: the median is at least the median of the
        # times with the limits in place of infinity.
        bound = statistics.median([r["time_s"] if not r.get("failed") and r["reached_target"] else r["limit_s"] for r in rs])
        t = f"> {bound:.3g}" if math.isinf(med[algo]) else f"{med[algo]:.3g}"
        med[algo + "_bound"] = bound
        ratio = ""
        if algo == "parallel":
            s, p = med["serial"], med["parallel"]
            ratio = ("n/a" if math.isinf(p) else f"> {med['serial_bound'] / p:.3g}x (lower bound)" if math.isinf(s) else f"{s / p:.3g}x")
        print(f"| {name} | {first.get('variables', '')} | {first.get('subfunctions', '')} | {rs[0]['optimum']} | "
              f"{algo} ({first.get('backend', 'failed')}) | {len(reached)}/{len(rs)} | {t} | "
              f"{'n/a' if evals is None else f'{evals:,.0f}'} | {ratio} |")
EOF
