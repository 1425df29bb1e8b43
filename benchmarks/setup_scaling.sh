#!/usr/bin/env bash
# Set-up cost at scale, per phase, for one or two pgomea binaries: reading the instance, the
# fixed linkage tree (FLT), the colouring (Welsh-Powell's degree count, then the colouring; and
# the incidence colouring), parallel GOM's group layout, and the peak resident memory; then the
# whole set-up of real runs (parallel on the CPU backend, and serial) from their JSON outcome.
#
#   benchmarks/setup_scaling.sh [NEW [OLD]]      (default NEW: target/release/pgomea)
#
# Instances (generated into $WORK, default a fresh directory under /tmp, deleted at the end
# unless KEEP=1): the 1000 x 1000 torus, the 3163 x 3163 torus (about 10^7 vertices; skipped
# with SKIP_10M=1), planted 3-SAT n = 10^6 m = 4.26 x 10^6, a random-neighbourhood NK landscape
# n = 3 x 10^5 k = 5, and G81 of the G-set (from $PGOMEA_INSTANCES, `--set C --name G81`).
# `pgomea info --json` of NEW gives each phase's time and its own peak memory; OLD (a build
# from before the sparse set-up) gives times only, its whole peak from /usr/bin/time, and each
# of its commands is cut at OLD_TIMEOUT seconds (default 300).
set -uo pipefail
NEW=${1:-target/release/pgomea}
OLD=${2:-}
OLD_TIMEOUT=${OLD_TIMEOUT:-300}
WORK=${WORK:-$(mktemp -d /tmp/setup_scaling.XXXXXX)}
mkdir -p "$WORK"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

gen() { # file, generate arguments...
  local f=$1
  shift
  [ -s "$f" ] || "$NEW" generate "$@" -o "$f" >/dev/null
}
gen "$WORK/torus1000.txt" torus --side 1000
[ "${SKIP_10M:-0}" = 1 ] || gen "$WORK/torus3163.txt" torus --side 3163
gen "$WORK/sat1e6.cnf" sat --n 1000000 --m 4260000
gen "$WORK/nk3e5.nk" nk --neighbourhood random --n 300000 --k 5

instances=("--set C --name G81" "--instance $WORK/torus1000.txt")
[ "${SKIP_10M:-0}" = 1 ] || instances+=("--instance $WORK/torus3163.txt")
instances+=("--instance $WORK/sat1e6.cnf" "--instance $WORK/nk3e5.nk")

# OLD's reader predates the graphs' `c optimum` line: it gets the graphs without it.
old_args() { # args... -> the same, a graph file replaced by its copy without the comment line
  local a
  for a in "$@"; do
    if [[ $a == "$WORK"/torus*.txt ]]; then
      [ -s "$a.old" ] || grep -v '^c ' "$a" >"$a.old"
      a=$a.old
    fi
    printf '%s\n' "$a"
  done
}

# One row of a binary's `info --json` (per-phase seconds and MiB), with the whole command's
# wall time and peak memory from /usr/bin/time.
info_row() { # label, binary, timeout, args...
  local label=$1 bin=$2 limit=$3
  shift 3
  local out err
  out=$(mktemp) err=$(mktemp)
  timeout "$limit" /usr/bin/time -f "%e %M" "$bin" info --json "$@" >"$out" 2>"$err"
  local rc=$?
  python3 - "$label" "$rc" "$limit" "$out" "$err" "$*" <<'EOF'
import json, sys
label, rc, limit, out, err, args = sys.argv[1:]
tail = open(err).read().split()
wall, peak_kib = (tail[-2], tail[-1]) if len(tail) >= 2 else ("?", "0")
try:
    d = json.load(open(out))
except Exception:
    why = "cut at %s s" % limit if rc == "124" else "failed (rc %s)" % rc
    print("| %s | %s | %s |" % (label, args, why))
    sys.exit()
mib = lambda k: "%.0f" % (d[k] / 2**20) if d.get(k) else "-"
sec = lambda k: "%.2f" % d[k] if d.get(k) is not None else "-"
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
    label, d["instance"], d["variables"], d["coloring"], d["colors"], sec("read_s"), sec("fos_build_s"),
    sec("lmig_build_s"), sec("coloring_s"), sec("layout_s"), mib("read_peak_rss_bytes"),
    mib("model_peak_rss_bytes"), mib("layout_peak_rss_bytes"), "%s s, %.0f MiB" % (wall, int(peak_kib) / 1024)))
EOF
  rm -f "$out" "$err"
}

echo "## info --json (FLT; read, FLT, degree count, colouring, layout; peak MiB per phase)"
echo
echo "| binary | instance | l | colouring | colours | read s | FLT s | degrees s | colouring s | layout s | read MiB | model MiB | layout MiB | whole command |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for i in "${instances[@]}"; do
  # shellcheck disable=SC2086
  for c in welsh-powell incidence; do info_row new "$NEW" 3600 $i --linkage flt --coloring $c; done
  # shellcheck disable=SC2086
  if [ -n "$OLD" ]; then
    mapfile -t o < <(old_args $i)
    info_row old "$OLD" "$OLD_TIMEOUT" "${o[@]}" --linkage flt --coloring welsh-powell
  fi
done

# The whole set-up of a run (read excluded: `setup_s` starts after it) and the run's peak memory.
run_row() { # label, binary, timeout, args...
  local label=$1 bin=$2 limit=$3
  shift 3
  local out
  out=$(mktemp)
  timeout "$limit" /usr/bin/time -f "%e %M" -o "$out.time" "$bin" run --json -q "$@" >"$out" 2>/dev/null
  python3 - "$label" "$?" "$limit" "$out" "$*" <<'EOF'
import json, sys
label, rc, limit, out, args = sys.argv[1:]
try:
    d = json.load(open(out))
    wall, kib = open(out + ".time").read().split()[-2:]
    print("| %s | %s | %.2f | %s | %.0f | %s |" % (label, args, d["setup_s"], d["generations"],
          d["peak_host_memory_bytes"] / 2**20, wall))
except Exception:
    print("| %s | %s | %s |" % (label, args, "cut at %s s" % limit if rc == "124" else "failed (rc %s)" % rc))
EOF
  rm -f "$out" "$out.time"
}

echo
echo "## run --json: set-up seconds (after the read), generations, peak MiB, whole command's wall s"
echo
echo "| binary | arguments | set-up s | generations | peak MiB | wall s |"
echo "|---|---|---:|---:|---:|---:|"
for algo in "parallel --backend cpu" serial; do
  # shellcheck disable=SC2086
  run_row new "$NEW" 3600 --instance "$WORK/torus1000.txt" --algo $algo --time-limit 60 --max-evals 1
  # shellcheck disable=SC2086
  [ -z "$OLD" ] || run_row old "$OLD" "$OLD_TIMEOUT" --instance "$(old_args "$WORK/torus1000.txt")" --algo $algo --time-limit 60 --max-evals 1
done
# A time limit shorter than the set-up: the run must end about when it says.
# shellcheck disable=SC2086
run_row new "$NEW" 3600 --instance "$WORK/sat1e6.cnf" --algo parallel --backend cpu --time-limit 2
[ -z "$OLD" ] || run_row old "$OLD" "$OLD_TIMEOUT" --instance "$WORK/sat1e6.cnf" --algo parallel --backend cpu --time-limit 2
