#!/usr/bin/env bash
# The control of hybrid parallel GOMEA: how much of the default's result is GOM's and how much the
# annealing's. Per class of instance, two instances, seeds 1..SEEDS, T seconds a run, it runs
#   default      pgomea run --algo parallel ... (hybrid: every new population of the multi-start
#                scheme annealed, then GOM generations on it)
#   anneal-only  the same with --anneal-only (the same scheme, population sizes and annealing of
#                every new population, and no GOM generation: each population ends once annealed)
# and, asked for with --variants, the two settings that `run`'s default chooses between:
#   annealed     --local-search initial --anneal-sweeps S (S: the backend's full annealing,
#                3000 on the GPU and 1000 on the CPU, which `run` takes up to 10^5 variables;
#                growth as `run` decides it): every new population annealed, then descended
#   descent      --local-search initial --anneal-sweeps 0: every new population brought to local
#                optima by the greedy descent alone, no annealing
#   unannealed   --local-search off: no local search, GOM alone (the paper's parallel GOMEA)
# and, for partition mixing into the elitist (`run --partition-mixing`, on by default below 10^5
# variables except for MAX-SAT), mix and no-mix (the default with mixing forced on or off)
# and anneal-only-mix (the control with mixing: the annealed populations mixed into the elitist,
# still no GOM generation; against it the default shows what GOM's generations add), and fi (the
# default with Forced Improvement, whose donor is the elitist that the mixing improves)
# and, for the annealing's share of the time left (`run --anneal-share`), share-S (the default
# with --anneal-share S; share-0: every annealing as long as asked) and anneal-only-share-S (the
# control with it)
# and restarts (the default with --elitist-restarts: every second new population begins as copies
# of the elitist, annealed from halfway down the schedule)
# and writes one CSV row per run, the traces (best fitness over time: the --trace file of `pgomea
# run`) and a summary: per instance and variant the mean best fitness; per class and variant the
# mean gap to the reference value (the optimum or best-known value where known, else the best any
# run found on the instance) and the mean time to the best; per class how often, seed by seed,
# the default ends better than (>), equal to (=) or worse than (<) the control.
#
# Classes (CLASSES picks some), with the instances in the order --pick counts them (the first
# two by default; the third and fourth are further instances of the class):
#   gset-random  G-set random graphs: G1, G43 (G44, the same family, when G43 is absent), then
#                the first present of G22, G23 (2000 vertices, denser)
#   gset-torus   G-set toroidal graphs: those present of G48, G62, G81, G57, G72, in that order
#   sg2d         2D spin glass (torus), +-1 and Gaussian weights (pgomea generate torus --dims 2),
#                side 100; then both again with side 200
#   sg3d         3D spin glass (torus), +-1 and Gaussian weights (pgomea generate torus --dims 3),
#                side 20; then both again with side 30
#   nk           NK landscapes: adjacent (optimum exact) and random neighbourhoods, K = 5; then
#                random, n = 10^4
#   trap         concatenated deceptive traps, k = 5, shuffled, two sizes (optimum = n); then
#                k = 6, 500 traps
#   maxsat       planted 3-SAT (pgomea generate sat; optimum m) and SATLIB uf150-01 (data
#                directory; satisfiable: optimum m); then planted 3-SAT n = 2000
#   maxsat-large planted 3-SAT of 2000 and 10^4 variables, 4.26 clauses per variable (optimum m)
#   torus        2D tori of positive uniform weights 1-5, sides 100 and 300 (bipartite: optimum =
#                total weight)
# The instances are generated here by the binary or read from the data directory (never copied).
# A run stops at T seconds, or at the optimum where it is proven (--target, both variants alike).
#
# Needs only bash, awk, the pgomea binary and the data directory (no Rust, no Python).
# Run time: at most classes x 2 instances x variants x SEEDS x T seconds, plus the set-up of each
# run beyond T when T is shorter than it (reading G81 and building its model) and the generation
# of the instances; e.g. 7 x 2 x 2 x 3 x 10 s = 840 s; CLASSES=gset-random,gset-torus,sg2d,nk,maxsat
# with T=10 and SEEDS=3: 600 s; SEEDS=2: 400 s.
#
# Usage: benchmarks/control.sh [options]
#   --bin PATH        the pgomea binary (default $PGOMEA, else target/release/pgomea here)
#   --instances DIR   the data directory (default $PGOMEA_INSTANCES)
#   --out DIR         output directory (default control_out)
#   --time T          seconds per run (default 10)
#   --seeds N         seeds 1..N (default 3)
#   --seed-from S     seeds S..S+N-1 instead (default 1)
#   --backend B       cuda, cpu or auto (default cuda)
#   --threads N       threads of the CPU backend (default: all cores)
#   --classes LIST    comma-separated classes (default: the first seven above)
#   --pick LIST       comma-separated positions of the instances in each class (default 1,2;
#                     e.g. 3 runs only each class's third instance)
#   --variants LIST   comma-separated variants (default: default,anneal-only; also annealed,
#                     descent, unannealed, share-S, anneal-only-share-S, mix, no-mix,
#                     anneal-only-mix, fi, restarts)
#   --summarise CSV   run nothing: print the tables of an existing runs.csv (e.g. the rows of
#                     several runs of this script, on several GPUs, joined under one header;
#                     --variants names the variants to show, the first is the one compared)
#   --sizes small     small generated instances (to check the script on a CPU; default full)
# Files: OUT/runs.csv (one row per run), OUT/traces/<run>.csv (time_s,evaluations,best_fitness),
# OUT/json/<run>.json (pgomea's JSON result, with the effective configuration), OUT/instances/
# (the generated instances), OUT/summary.txt (the tables, also printed).
set -uo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${PGOMEA:-$REPO/target/release/pgomea}"
DATA="${PGOMEA_INSTANCES:-}"
OUT=control_out
T=10
SEEDS=3
SEED_FROM=1
BACKEND=cuda
THREADS=
CLASSES=gset-random,gset-torus,sg2d,sg3d,nk,trap,maxsat
SIZES=full
VARIANT_LIST=default,anneal-only
PICK=1,2
SUMMARISE=

die() { echo "control.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN="$2"; shift 2 ;;
        --instances) DATA="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --time) T="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        --seed-from) SEED_FROM="$2"; shift 2 ;;
        --backend) BACKEND="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --classes) CLASSES="$2"; shift 2 ;;
        --variants) VARIANT_LIST="$2"; shift 2 ;;
        --pick) PICK="$2"; shift 2 ;;
        --sizes) SIZES="$2"; shift 2 ;;
        --summarise) SUMMARISE="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done
# The tables of runs.csv $1: per instance, per class, and the first variant against each other seed by
# seed (in the order of the runs).
summarise() {
awk -F, -v variants="$VARIANT_LIST" -v T="$T" '
BEGIN { nv = split(variants, V, ",") }
NR == 1 { next }
$5 == "" { failed++; next }
{
    if (!($1 in inst)) { order[++ni] = $1; inst[$1] = $2 }
    if (!($2 in seen)) { corder[++nc] = $2; seen[$2] = 1 }
    key = $1 SUBSEP $3
    n[key]++; sum[key] += $5; ttb[key] += $6
    # Time to the reference: the time of the last improvement where it was reached, else the
    # whole run (a lower bound, counted in cut[]).
    if ($9 == "true") { hit[key]++; tto[key] += $6 } else { tto[key] += ($11 == "" ? T : $11); cut[key]++ }
    if ($7 != "") ref[$1] = $7
    if (!($1 in top) || $5 + 0 > top[$1] + 0) top[$1] = $5
    best[$1 SUBSEP $3 SUBSEP $4] = $5
    if (!(($1 SUBSEP $4) in seeds)) { seeds[$1 SUBSEP $4] = 1; sorder[++ns] = $1 SUBSEP $4 }
}
# The gap of fitness f on instance i to its reference, in percent.
function gap(i, f,   r) { r = (i in ref) ? ref[i] : top[i]; return r == 0 ? 0 : 100 * (r - f) / (r < 0 ? -r : r) }
END {
    printf "Per instance and variant: mean best fitness over seeds, runs that reached the reference / runs,\n"
    printf "mean time to the reference in s where there is one (>: some runs did not reach it and count with\n"
    printf "their whole time, a lower bound)\n"
    printf "%-12s %-24s %-15s %16s %8s %10s %14s\n", "class", "instance", "variant", "mean best", "reached", "time", "reference"
    for (x = 1; x <= ni; x++) {
        i = order[x]
        for (v = 1; v <= nv; v++) {
            k = i SUBSEP V[v]; if (!n[k]) continue
            t = (i in ref) ? sprintf("%s%.3f", cut[k] ? ">" : "", tto[k] / n[k]) : "-"
            printf "%-12s %-24s %-15s %16.1f %4d/%-3d %10s %14s\n", inst[i], i, V[v], sum[k] / n[k], hit[k], n[k], t, (i in ref) ? ref[i] : "-"
        }
    }
    for (x = 1; x <= ns; x++) {
        split(sorder[x], p, SUBSEP); i = p[1]; c = inst[i]
        for (v = 1; v <= nv; v++) {
            k = i SUBSEP V[v] SUBSEP p[2]
            if (k in best) { cn[c, v]++; cg[c, v] += gap(i, best[k]) }
        }
        a = i SUBSEP V[1] SUBSEP p[2]
        for (v = 2; v <= nv; v++) {
            b = i SUBSEP V[v] SUBSEP p[2]
            if (!(a in best) || !(b in best)) continue
            if (best[a] + 0 > best[b] + 0) gt[c, v]++; else if (best[a] + 0 == best[b] + 0) eq[c, v]++; else lt[c, v]++
        }
    }
    for (x = 1; x <= ni; x++) for (v = 1; v <= nv; v++) { i = order[x]; k = i SUBSEP V[v]; ct[inst[i], v] += ttb[k]; cc[inst[i], v] += n[k] }
    printf "\nPer class and variant: mean gap to the reference in %% (the optimum or best-known value, else the\n"
    printf "best of all runs on the instance; 0 is best), mean time to the best in s, and seed by seed how often\n"
    printf "%s ended better than (>), equal to (=) or worse than (<) the variant\n", V[1]
    printf "%-12s %-15s %12s %9s %5s %5s %5s\n", "class", "variant", "gap", "ttb", ">", "=", "<"
    for (x = 1; x <= nc; x++) {
        c = corder[x]
        for (v = 1; v <= nv; v++) {
            d = cn[c, v]; if (!d) continue
            printf "%-12s %-15s %11.4f%% %9.2f", c, V[v], cg[c, v] / d, cc[c, v] ? ct[c, v] / cc[c, v] : 0
            if (v == 1) printf " %5s %5s %5s\n", "", "", ""
            else { printf " %5d %5d %5d\n", gt[c, v], eq[c, v], lt[c, v]; tg[v] += gt[c, v]; te[v] += eq[c, v]; tl[v] += lt[c, v] }
        }
    }
    for (v = 2; v <= nv; v++) printf "%-12s %-15s %12s %9s %5d %5d %5d\n", "all", V[v], "", "", tg[v], te[v], tl[v]
    if (failed) printf "\n%d run(s) failed: see the .err files in the json directory\n", failed
}' "$1"
}
if [ -n "$SUMMARISE" ]; then
    [ -f "$SUMMARISE" ] || die "--summarise $SUMMARISE: no such file"
    summarise "$SUMMARISE"
    exit
fi
[ -x "$BIN" ] || die "no pgomea binary at $BIN (--bin PATH or PGOMEA=...)"
[ -n "$DATA" ] && [ -f "$DATA/best_known.csv" ] || die "no data directory with best_known.csv at '$DATA' (--instances DIR)"
[[ "$SEEDS" =~ ^[1-9][0-9]*$ ]] || die "--seeds $SEEDS: expected a positive integer"
[[ "$SEED_FROM" =~ ^[0-9]+$ ]] || die "--seed-from $SEED_FROM: expected a seed (0, 1, ...)"
awk -v t="$T" 'BEGIN { exit !(t + 0 > 0) }' || die "--time $T: expected a positive number of seconds"
case "$BACKEND" in cuda|cpu|auto) ;; *) die "--backend $BACKEND: expected cuda, cpu or auto" ;; esac
case "$SIZES" in small|full) ;; *) die "--sizes $SIZES: expected small or full" ;; esac
[[ "$PICK" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--pick $PICK: expected comma-separated positions (1, 2, ...)"
IFS=, read -r -a VARIANTS <<<"$VARIANT_LIST"
for v in "${VARIANTS[@]}"; do
    case "$v" in default|anneal-only|annealed|descent|unannealed|share-[0-9]*|anneal-only-share-[0-9]*|mix|no-mix|anneal-only-mix|fi|restarts) ;; *) die "unknown variant $v (default, anneal-only, annealed, descent, unannealed, share-S, anneal-only-share-S, mix, no-mix, anneal-only-mix, fi, restarts)" ;; esac
done
"$BIN" run --help | grep -q -- --anneal-only || die "$BIN has no --anneal-only (build the branch with the control)"

mkdir -p "$OUT/traces" "$OUT/json" "$OUT/instances" || die "cannot create $OUT"
GEN="$OUT/instances"

if [ "$SIZES" = small ]; then
    SG2=(16 24); SG3=(6 8); NK_A=400; NK_R=(200 400); TRAP=(40 100); TRAP6=50; SAT_N=(60 200); UF=uf50-01; SAT_L=(100 200); TORI=(16 30)
else
    SG2=(100 200); SG3=(20 30); NK_A=10000; NK_R=(2000 10000); TRAP=(400 2000); TRAP6=500; SAT_N=(250 2000); UF=uf150-01; SAT_L=(2000 10000); TORI=(100 300)
fi

# Instances: "class name file reference kind", kind: optimum (proven: the runs stop there),
# best-known (a lower bound) or none.
INSTANCES=()
add() { INSTANCES+=("$1 $2 $3 $4 $5"); }
# Whether position $1 of a class is picked.
picked() { [[ ",$PICK," == *",$1,"* ]]; }
# The optimum a generator printed (`optimum V` or `optimum unknown`).
gen() { "$BIN" generate "$@" | awk '$1 == "optimum" { print $2 }'; }
gset() { # class, then candidates, alternatives joined by '|': the first present of each counts
    local class=$1 pos=0 word name row; shift
    for word in "$@"; do
        for name in ${word//|/ }; do
            [ -f "$DATA/gset/$name.txt" ] || continue
            pos=$((pos + 1))
            picked $pos || continue 2
            row=$(awk -F, -v n="$name" '($1 == "C" || $1 == "G") && $2 == n { print $5, ($6 == "true" ? "optimum" : "best-known") }' "$DATA/best_known.csv")
            [ -n "$row" ] || row="- none"
            add "$class" "$name" "$DATA/gset/$name.txt" $row
            continue 2
        done
    done
    for p in ${PICK//,/ }; do
        [ "$p" -le $pos ] || echo "control.sh: $class has $pos instance(s) in $DATA/gset, none at position $p" >&2
    done
}
known() { [ "$1" = unknown ] && echo "- none" || echo "$1 optimum"; }
for class in ${CLASSES//,/ }; do
    case "$class" in
        gset-random) gset "$class" G1 "G43|G44|G2" "G22|G23" ;;
        gset-torus) gset "$class" G48 G62 G81 G57 G72 ;;
        sg2d|sg3d)
            dims=${class:2:1}; pos=0
            if [ "$dims" = 2 ]; then sides=("${SG2[@]}"); else sides=("${SG3[@]}"); fi
            for side in "${sides[@]}"; do
                for w in pm1 gaussian; do
                    pos=$((pos + 1)); picked $pos || continue
                    f="$GEN/sg${dims}d-$w-L$side.txt"
                    opt=$(gen torus --side "$side" --dims "$dims" --weights "$w" --seed 1 -o "$f") || die "generate torus failed"
                    add "$class" "sg${dims}d-$w-L$side" "$f" $(known "$opt")
                done
            done ;;
        nk)
            if picked 1; then
                f="$GEN/nk-adjacent-n$NK_A-k5.nk"
                opt=$(gen nk --n "$NK_A" --k 5 --seed 1 -o "$f") || die "generate nk failed"
                add nk "nk-adjacent-n$NK_A-k5" "$f" $(known "$opt")
            fi
            pos=1
            for n in "${NK_R[@]}"; do
                pos=$((pos + 1)); picked $pos || continue
                f="$GEN/nk-random-n$n-k5.nk"
                opt=$(gen nk --n "$n" --k 5 --neighbourhood random --seed 1 -o "$f") || die "generate nk failed"
                add nk "nk-random-n$n-k5" "$f" $(known "$opt")
            done ;;
        trap)
            pos=0
            for kb in "${TRAP[@]/#/5:}" "6:$TRAP6"; do
                pos=$((pos + 1)); picked $pos || continue
                k=${kb%:*}; b=${kb#*:}
                f="$GEN/trap-k$k-b$b.nk"
                opt=$(gen trap --k "$k" --blocks "$b" --shuffle --seed 1 -o "$f") || die "generate trap failed"
                add trap "trap-k$k-n$((k * b))" "$f" $(known "$opt")
            done ;;
        maxsat)
            # Position 1 and 3: planted 3-SAT, 4.26 clauses per variable; 2: SATLIB.
            for pos in 1 3; do
                picked $pos || continue
                n=${SAT_N[$(( pos / 2 ))]}; m=$((n * 426 / 100)); f="$GEN/sat3-n$n-m$m.cnf"
                opt=$(gen sat --n "$n" --m "$m" --seed 1 -o "$f") || die "generate sat failed"
                add maxsat "sat3-planted-n$n" "$f" $(known "$opt")
            done
            f="$DATA/maxsat/$UF.cnf"
            if ! picked 2; then
                :
            elif [ -f "$f" ]; then
                # SATLIB's uf instances are satisfiable: the optimum is the number of clauses.
                m=$(awk '$1 == "p" && $2 == "cnf" { print $4; exit }' "$f")
                add maxsat "$UF" "$f" "$m" optimum
            else
                echo "control.sh: no $f; maxsat has no instance at position 2" >&2
            fi ;;
        maxsat-large)
            for n in "${SAT_L[@]}"; do
                m=$((n * 426 / 100)); f="$GEN/sat3-n$n-m$m.cnf"
                opt=$(gen sat --n "$n" --m "$m" --seed 1 -o "$f") || die "generate sat failed"
                add maxsat-large "sat3-planted-n$n" "$f" $(known "$opt")
            done ;;
        torus)
            for side in "${TORI[@]}"; do
                f="$GEN/torus-L$side.txt"
                opt=$(gen torus --side "$side" --seed 1 -o "$f") || die "generate torus failed"
                add torus "torus-L$side" "$f" $(known "$opt")
            done ;;
        *) die "unknown class $class (gset-random, gset-torus, sg2d, sg3d, nk, trap, maxsat, maxsat-large, torus)" ;;
    esac
done

runs=$(( ${#INSTANCES[@]} * ${#VARIANTS[@]} * SEEDS ))
echo "control.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(nproc) CPUs"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
fi
echo "binary: $BIN; backend $BACKEND; ${#INSTANCES[@]} instances x ${#VARIANTS[@]} variants x $SEEDS seeds = $runs runs of at most $T s (about $(awk -v r=$runs -v t="$T" 'BEGIN { printf "%.0f", r * t }') s)"

# The backend's full annealing sweeps, for the variant `annealed`.
SWEEPS=$([ "$BACKEND" = cuda ] && echo 3000 || echo 1000)
CSV="$OUT/runs.csv"
echo "instance,class,variant,seed,best_fitness,time_to_best_s,reference,reference_kind,reached_reference,stop_reason,time_s,evaluations,generations,gom_steps,populations,backend" > "$CSV"
# A top-level field of pgomea's one-line JSON (the first occurrence: the outcome's own fields come
# before its configuration).
field() { grep -o "\"$2\":\(\"[^\"]*\"\|\[[^]]*\]\|[^,}]*\)" "$1" | head -1 | cut -d: -f2- | tr -d '"[]' | tr ',' ' '; }

k=0
for inst in "${INSTANCES[@]}"; do
    read -r class name file ref kind <<<"$inst"
    refcsv=$([ "$ref" = - ] || echo "$ref")
    for seed in $(seq "$SEED_FROM" $((SEED_FROM + SEEDS - 1))); do
        for variant in "${VARIANTS[@]}"; do
            k=$((k + 1))
            id="$name-$variant-seed$seed"
            args=(run --instance "$file" --instances-dir "$DATA" --algo parallel --backend "$BACKEND" --seed "$seed" \
                --time-limit "$T" --json --quiet --trace "$OUT/traces/$id.csv")
            [ -n "$THREADS" ] && args+=(--threads "$THREADS")
            [ "$kind" = optimum ] && args+=(--target "$ref")
            case "$variant" in
                anneal-only) args+=(--anneal-only) ;;
                annealed) args+=(--local-search initial --anneal-sweeps "$SWEEPS") ;;
                descent) args+=(--local-search initial --anneal-sweeps 0) ;;
                unannealed) args+=(--local-search off) ;;
                share-*) args+=(--anneal-share "${variant#share-}") ;;
                anneal-only-share-*) args+=(--anneal-only --anneal-share "${variant#anneal-only-share-}") ;;
                mix) args+=(--partition-mixing) ;;
                no-mix) args+=(--no-partition-mixing) ;;
                anneal-only-mix) args+=(--anneal-only --partition-mixing) ;;
                fi) args+=(--fi) ;;
                restarts) args+=(--elitist-restarts) ;;
            esac
            if ! "$BIN" "${args[@]}" > "$OUT/json/$id.json" 2> "$OUT/json/$id.err"; then
                echo "[$k/$runs] $id: FAILED ($(tail -1 "$OUT/json/$id.err"))"
                echo "$name,$class,$variant,$seed,,,$refcsv,$kind,,failed,,,,,," >> "$CSV"
                continue
            fi
            j="$OUT/json/$id.json"
            best=$(field "$j" best_fitness)
            # The time of the last improvement: the trace's last row (the header alone: none).
            ttb=$(awk -F, 'NR > 1 { t = $1 } END { print t }' "$OUT/traces/$id.csv")
            reached=""
            [ "$ref" != - ] && reached=$([ "$best" -ge "$ref" ] && echo true || echo false)
            backend=$(field "$j" backend | cut -d' ' -f1)
            row="$name,$class,$variant,$seed,$best,$ttb,$refcsv,$kind,$reached,$(field "$j" stop_reason),$(field "$j" time_s)"
            row="$row,$(field "$j" evaluations),$(field "$j" generations),$(field "$j" gom_steps),$(field "$j" populations),$backend"
            echo "$row" >> "$CSV"
            echo "[$k/$runs] $id: best $best (reference $ref $kind), time to best ${ttb:-?} s, generations $(field "$j" generations)"
        done
    done
done

summarise "$CSV" | tee "$OUT/summary.txt"
echo "rows: $CSV; traces: $OUT/traces; summary: $OUT/summary.txt"
