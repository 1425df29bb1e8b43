#!/usr/bin/env python3
"""Time to the optimum per problem kind: pgomea (serial GOMEA, and parallel GOMEA on the CPU
backend) against CWI's GOMEA from PyPI (`pip install gomea==1.1.0`), on the same instances.

Kinds and instances (every optimum is proven):

  * trap:    concatenated deceptive traps, k = 5, adjacent blocks, n = 100 .. 800 variables.
             pgomea: `pgomea generate trap --k 5 --blocks n/5` (a .nk file, optimum n);
             gomea:  `gomea.fitness.DeceptiveTrapFunction(n, 5)` (the same function; it stops at
             its value to reach, n).
  * nk:      adjacent NK landscapes, K = 5 (n - 4 windows of 5 consecutive variables), the tables of
             `gomea.fitness.NKLandscapes(n, 5, table_seed)`. gomea draws them in memory from
             std::mt19937(table_seed), entry = (int)(1e6 * U[0, 1)) with libstdc++'s two-word
             generate_canonical; this script draws the same numbers with numpy's MT19937 (same
             seeding) and writes them as an MK-landscape file for pgomea. Every gomea run checks
             that the table gives its best solution the value gomea reports. The optimum is exact
             (pgomea's dynamic programming over the windows, `pgomea info`). gomea's NK function has
             no value to reach, so gomea runs to the time limit and its time to the optimum is the
             clock of the first generation statistics row at the optimum (an upper bound by at most
             one generation).
  * max-sat: SATLIB uniform random 3-SAT uf20-01, uf50-01, uf100-01, uf150-01 (satisfiable: the
             optimum is the clause count) from the data directory's maxsat/ folder. gomea: its
             custom gray-box interface (a `GBOFitnessFunctionDiscrete` subclass in Python: one
             subfunction per clause, its inputs the clause's variables, value to reach = m).

Each run is its own subprocess, one after another (never two at once), seeds 1..N:
    pgomea run --instance F --algo serial --local-search off --linkage flt --seed S --target OPT
             --time-limit T --json -q
  pgomea run --instance F --algo parallel --backend cpu --no-fi --local-search off --linkage flt ...
             (all cores)
(with --config default, without the --local-search and --no-fi options: `pgomea run`'s defaults)
  gomea.DiscreteGOMEA(fitness=..., linkage_model=gomea.linkage.StaticLinkageTree(),
                      base_population_size=16, max_number_of_seconds=T, random_seed=S).run()
Time to the optimum is each tool's own clock (pgomea: `time_s`, from after reading the file;
gomea: `time` of its final or generational statistics, from the start of `run()`), a run that did
not reach the optimum counting as infinite; medians over the seeds. The table gives the ratio of
gomea's median to pgomea's (serial and parallel) per instance, and per kind whether pgomea serial
is at least 10x faster on every instance.

Usage: python3 benchmarks/problems_vs_gomea.py [--seeds 10] [--time-limit 30] [--quick]
       [--kinds trap,nk,max-sat] [--pgomea target/release/pgomea] [--instances-dir DIR]
       [--out FILE.md] [--raw FILE.jsonl]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import REPO, censored_median, default_instances_dir, git_commit, last_json_line, machine_line, timed_run

WORKER_FLAG = "--gomea-worker"
KILL_MARGIN_S = 30.0
GOAL = 10.0

TRAP_K = 5
TRAP_SIZES = [100, 200, 400, 800]
NK_K = 5
# (n, table seed)
NK_INSTANCES = [(100, 101), (200, 201), (400, 401)]
SAT_INSTANCES = ["uf20-01", "uf50-01", "uf100-01", "uf150-01"]


# --------------------------------------------------------------------------------------------
# Instances shared by both tools
# --------------------------------------------------------------------------------------------
def gomea_nk_tables(n: int, k: int, table_seed: int):
    """The tables of gomea.fitness.NKLandscapes(n, k, table_seed), as a (n-k+1) x 2^k int array.

    gomea: std::mt19937 rng(seed); per window, per entry, (int)(1e6 * u) where u is
    std::uniform_real_distribution<double>(0, 1) = generate_canonical<double, 53>: two 32-bit words
    w0, w1 -> (double(w0) + double(w1) * 2^32) / 2^64 (clamped below 1). numpy's MT19937 with
    legacy seeding is the same generator as std::mt19937(seed)."""
    import numpy as np

    bits = np.random.MT19937(0)
    bits._legacy_seeding(table_seed)
    m = n - k + 1
    raw = bits.random_raw(2 * m * (1 << k)).astype(np.float64)
    u = (raw[0::2] + raw[1::2] * 4294967296.0) / 18446744073709551616.0
    u = np.minimum(u, np.nextafter(1.0, 0.0))
    return np.floor(1e6 * u).astype(np.int64).reshape(m, 1 << k)


def write_mk(path: Path, n: int, k: int, table_seed: int) -> None:
    """The NK instance as an MK-landscape file (0-based variables, first one the top bit)."""
    tables = gomea_nk_tables(n, k, table_seed)
    lines = [f"c gomea.fitness.NKLandscapes({n}, {k}, {table_seed}), written by problems_vs_gomea.py",
             f"p NK {n} {k}"]
    for i, row in enumerate(tables):
        lines.append("m " + " ".join(str(i + j) for j in range(k)))
        lines.append(" ".join(str(int(v)) for v in row))
    path.write_text("\n".join(lines) + "\n")


def read_cnf(path: Path) -> tuple[int, list[list[int]]]:
    """Variables and clauses (signed 1-based literals) of a DIMACS cnf file (SATLIB's `%` ends it)."""
    n, clauses, current = 0, [], []
    for line in path.read_text().splitlines():
        t = line.split()
        if not t or t[0] == "c":
            continue
        if t[0] == "%":
            break
        if t[0] == "p":
            n = int(t[2])
            continue
        for tok in t:
            lit = int(tok)
            if lit == 0:
                clauses.append(current)
                current = []
            else:
                current.append(lit)
    return n, clauses


# --------------------------------------------------------------------------------------------
# gomea worker (one run per subprocess)
# --------------------------------------------------------------------------------------------
def gomea_worker(kind: str, spec: dict, seed: int, time_limit: float) -> int:
    t_import = time.perf_counter()
    import gomea  # noqa: PLC0415

    t0 = time.perf_counter()
    check = None
    if kind == "trap":
        fitness = gomea.fitness.DeceptiveTrapFunction(spec["n"], spec["k"])
    elif kind == "nk":
        fitness = gomea.fitness.NKLandscapes(spec["n"], spec["k"], spec["table_seed"])
        tables = gomea_nk_tables(spec["n"], spec["k"], spec["table_seed"])

        def check(solution: list[int]) -> int:
            total = 0
            for i, row in enumerate(tables):
                key = 0
                for j in range(spec["k"]):
                    key = 2 * key + solution[i + j]
                total += int(row[key])
            return total
    elif kind == "max-sat":
        n, clauses = read_cnf(Path(spec["file"]))
        # Per clause: (index, value that satisfies) of each literal.
        wanted = [[(abs(lit) - 1, 1 if lit > 0 else 0) for lit in c] for c in clauses]
        inputs = [[abs(lit) - 1 for lit in c] for c in clauses]

        class MaxSat(gomea.fitness.GBOFitnessFunctionDiscrete):
            def number_of_subfunctions(self):
                return len(wanted)

            def inputs_to_subfunction(self, subfunction_index):
                return inputs[subfunction_index]

            def subfunction(self, subfunction_index, variables):
                for v, value in wanted[subfunction_index]:
                    if variables[v] == value:
                        return 1.0
                return 0.0

        fitness = MaxSat(n, value_to_reach=float(len(clauses)))
    else:
        raise SystemExit(f"unknown kind {kind}")
    t1 = time.perf_counter()
    # DiscreteGOMEA keeps only a pointer to the linkage model: keep the object referenced.
    linkage = gomea.linkage.StaticLinkageTree()
    optimizer = gomea.DiscreteGOMEA(fitness=fitness, linkage_model=linkage, base_population_size=16,
                                    max_number_of_seconds=float(time_limit), random_seed=int(seed))
    t2 = time.perf_counter()
    result = optimizer.run()
    t3 = time.perf_counter()
    final = result.getFinalStatistics()
    optimum = float(spec["optimum"])
    best = float(final["best_obj_val"])
    out = {
        "best_fitness": best,
        "final_time_s": float(final["time"]),
        "final_evaluations": float(final["evaluations"]),
        "run_wall_s": t3 - t2,
        "read_s": t1 - t0,
        "import_s": t0 - t_import,
    }
    if kind == "nk":
        # No value to reach: the first generation whose best is the optimum.
        g = result.getGenerationalStatistics()
        first = next((i for i, b in enumerate(g["best_obj_val"]) if float(b) >= optimum), None)
        out["reached_target"] = first is not None
        out["time_s"] = float(g["time"][first]) if first is not None else float(final["time"])
        out["evaluations"] = float(g["evaluations"][first]) if first is not None else float(final["evaluations"])
        solution = [int(c) for c in final["best_solution"].strip("[]")]
        out["tables_match"] = check(solution) == int(best)
    else:
        out["reached_target"] = best >= optimum
        out["time_s"] = float(final["time"])
        out["evaluations"] = float(final["evaluations"])
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------
def die(msg: str) -> None:
    print(f"problems_vs_gomea: error: {msg}", file=sys.stderr)
    sys.exit(2)


# pgomea's configurations: `gomea` is GOMEA as PyPI gomea runs it (serial with Forced Improvement,
# parallel GOM as in the paper, neither with local search); `default` is `pgomea run`'s defaults
# (both with annealed local search of every new population).
CONFIGS = {
    "gomea": {"serial": ["--local-search", "off"], "parallel": ["--no-fi", "--local-search", "off"]},
    "default": {"serial": [], "parallel": []},
}


def run_pgomea(binary: Path, instance: Path, algo: str, optimum: int, seed: int, time_limit: float,
               config: str = "gomea") -> dict:
    cmd = [str(binary), "run", "--instance", str(instance), "--algo", algo, *CONFIGS[config][algo], "--linkage", "flt",
           "--seed", str(seed), "--target", str(optimum), "--time-limit", f"{time_limit:g}", "--json", "--quiet"]
    if algo == "parallel":
        cmd += ["--backend", "cpu"]
    p, wall, cpu = timed_run(cmd, time_limit + KILL_MARGIN_S)
    if p is None:
        return {"ok": False, "error": "killed (timeout)", "process_wall_s": wall, "process_cpu_s": cpu}
    d = last_json_line(p.stdout)
    if p.returncode != 0 or d is None:
        return {"ok": False, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}",
                "process_wall_s": wall, "process_cpu_s": cpu}
    return {"ok": True, "best_fitness": d["best_fitness"], "reached_target": bool(d["reached_target"]),
            "time_s": float(d["time_s"]), "evaluations": float(d["evaluations"]), "gom_steps": d.get("gom_steps"),
            "populations": d.get("populations"), "backend": d.get("backend"),
            "process_wall_s": wall, "process_cpu_s": cpu}


def run_gomea(kind: str, spec: dict, seed: int, time_limit: float, workdir: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), WORKER_FLAG, kind, json.dumps(spec), str(seed),
           f"{time_limit:g}"]
    # gomea's optimiser is single-threaded; one BLAS thread keeps numpy from starting a pool.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p, wall, cpu = timed_run(cmd, time_limit + KILL_MARGIN_S, cwd=workdir, env=env)
    if p is None:
        return {"ok": False, "error": "killed (timeout)", "process_wall_s": wall, "process_cpu_s": cpu}
    d = last_json_line(p.stdout)
    if p.returncode != 0 or d is None:
        return {"ok": False, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}",
                "process_wall_s": wall, "process_cpu_s": cpu}
    if d.get("tables_match") is False:
        die(f"gomea's NK tables ({spec}) differ from the ones this script wrote for pgomea: "
            "the instances would not be the same")
    d.update(ok=True, process_wall_s=wall, process_cpu_s=cpu)
    return d


def summarize(runs: list[dict], time_limit: float) -> dict:
    ok = [r for r in runs if r.get("ok")]
    reached = [r for r in ok if r["reached_target"]]
    times = [r["time_s"] if r.get("ok") and r["reached_target"] else math.inf for r in runs]
    evals = [r["evaluations"] if r.get("ok") and r["reached_target"] else math.inf for r in runs]
    return {
        "runs": len(runs),
        "reached": len(reached),
        "errors": len(runs) - len(ok),
        "median_time": censored_median(times),
        # Lower bound of the median: an unreached run would have needed more than the limit.
        "median_time_lb": censored_median([time_limit if math.isinf(t) else t for t in times]),
        "median_evals": censored_median(evals),
        "median_wall": statistics.median([r["process_wall_s"] for r in runs]) if runs else math.nan,
        "median_cpu": statistics.median([r["process_cpu_s"] for r in runs]) if runs else math.nan,
        "time_limit": time_limit,
    }


def fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if x == 0:
        return "0"
    if abs(x) >= 1e6:
        return f"{x:.3g}".replace("e+0", "e").replace("e+", "e")
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def ratio(g: dict, p: dict) -> tuple[str, float | None]:
    """gomea's median time over pgomea's, as text and as a number (a lower bound where gomea's
    median run did not reach the optimum; None where pgomea's did not)."""
    gt, pt = g["median_time"], p["median_time"]
    if math.isinf(pt):
        return "n/a (pgomea's median run unreached)", None
    if pt <= 0:
        return "n/a", None
    if math.isinf(gt):
        r = g["median_time_lb"] / pt
        return f"> {r:,.0f}x (lower bound)", r
    r = gt / pt
    return f"{r:,.1f}x", r


def pgomea_info(binary: Path, instance: Path) -> dict:
    p = subprocess.run([str(binary), "info", "--json", "--instance", str(instance)], capture_output=True, text=True)
    if p.returncode != 0:
        die(f"pgomea info {instance}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == WORKER_FLAG:
        _, _, kind, spec, seed, tl = sys.argv
        return gomea_worker(kind, json.loads(spec), int(seed), float(tl))

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgomea", type=Path, default=REPO / "target" / "release" / "pgomea",
                    help="pgomea binary (default: target/release/pgomea of this repository)")
    default_dir = default_instances_dir()
    ap.add_argument("--instances-dir", type=Path, default=default_dir,
                    help="data directory with maxsat/ (default: $PGOMEA_INSTANCES, else ./instances "
                         "from the repository root)")
    ap.add_argument("--seeds", type=int, default=10, help="seeds 1..N per instance and tool (default 10)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per run (default 30)")
    ap.add_argument("--quick", action="store_true", help="3 seeds, 10 s per run (overrides both)")
    ap.add_argument("--kinds", default="trap,nk,max-sat", help="comma-separated subset of trap,nk,max-sat")
    ap.add_argument("--config", choices=sorted(CONFIGS), default="gomea",
                    help="pgomea's configuration: gomea (default; no local search, as gomea) or default "
                         "(`pgomea run`'s defaults, annealed local search of new populations)")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown report to this file")
    ap.add_argument("--raw", type=Path, default=None, help="also write every run as one JSON line here")
    args = ap.parse_args()
    if args.quick:
        args.seeds, args.time_limit = 3, 10.0
    if args.seeds < 1 or args.time_limit <= 0:
        die("--seeds must be >= 1 and --time-limit > 0")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not kinds or any(k not in ("trap", "nk", "max-sat") for k in kinds):
        die("--kinds: choose among trap, nk, max-sat")
    if importlib.util.find_spec("gomea") is None or importlib.util.find_spec("numpy") is None:
        die(f"the Python packages `gomea` and `numpy` are needed for {sys.executable}; "
            "install them with `pip install gomea==1.1.0` (CPython 3.11 wheel; it pulls numpy)")
    from importlib.metadata import version
    gomea_version = version("gomea")
    if not (args.pgomea.is_file() and os.access(args.pgomea, os.X_OK)):
        die(f"pgomea binary {args.pgomea} not found; build it with `cargo build --release` or pass --pgomea PATH")

    scratch = Path(tempfile.mkdtemp(prefix="problems_vs_gomea_"))
    # (kind, label, pgomea file, gomea spec, variables, subfunctions, optimum)
    instances = []
    if "trap" in kinds:
        for n in TRAP_SIZES:
            path = scratch / f"trap-k{TRAP_K}-n{n}.nk"
            subprocess.run([str(args.pgomea), "generate", "trap", "--k", str(TRAP_K), "--blocks", str(n // TRAP_K),
                            "-o", str(path)], check=True, capture_output=True)
            instances.append(("trap", f"trap k={TRAP_K} n={n}", path, {"n": n, "k": TRAP_K, "optimum": n},
                              n, n // TRAP_K, n))
    if "nk" in kinds:
        for n, table_seed in NK_INSTANCES:
            path = scratch / f"nk-n{n}-k{NK_K}-s{table_seed}.mk"
            write_mk(path, n, NK_K, table_seed)
            info = pgomea_info(args.pgomea, path)
            if info.get("best_known") is None:
                die(f"{path}: pgomea found no exact optimum for these sliding windows")
            opt = int(info["best_known"])
            instances.append(("nk", f"NK K={NK_K} n={n} (table seed {table_seed})", path,
                              {"n": n, "k": NK_K, "table_seed": table_seed, "optimum": opt},
                              n, n - NK_K + 1, opt))
    if "max-sat" in kinds:
        for name in SAT_INSTANCES:
            path = args.instances_dir / "maxsat" / f"{name}.cnf"
            if not path.is_file():
                die(f"{path} not found (set --instances-dir or $PGOMEA_INSTANCES)")
            n, clauses = read_cnf(path)
            # SATLIB's uf instances are satisfiable: the optimum is the clause count.
            instances.append(("max-sat", f"SATLIB {name}", path, {"file": str(path), "optimum": len(clauses)},
                              n, len(clauses), len(clauses)))

    seeds = list(range(1, args.seeds + 1))
    started = datetime.datetime.now().astimezone()
    repo_commit = git_commit()
    binary_sha = hashlib.sha256(args.pgomea.read_bytes()).hexdigest()[:12]
    load_before = os.getloadavg()
    raw_out = args.raw.open("w") if args.raw else None
    tools = ["pgomea serial", "pgomea parallel", "gomea"]
    rows = []
    t_all = time.perf_counter()
    for kind, label, path, spec, n, m, opt in instances:
        per_tool: dict[str, list[dict]] = {t: [] for t in tools}
        for seed in seeds:
            for tool in tools:
                if tool == "gomea":
                    r = run_gomea(kind, spec, seed, args.time_limit, str(scratch))
                else:
                    r = run_pgomea(args.pgomea, path, tool.split()[1], opt, seed, args.time_limit, args.config)
                r.update(tool=tool, kind=kind, instance=label, seed=seed, optimum=opt)
                per_tool[tool].append(r)
                if raw_out:
                    raw_out.write(json.dumps(r) + "\n")
                    raw_out.flush()
                if r.get("ok"):
                    msg = (f"best {r['best_fitness']:g}/{opt} {'reached' if r['reached_target'] else 'NOT reached'} "
                           f"t={r['time_s']:.4f}s evals={r['evaluations']:.0f} wall={r['process_wall_s']:.2f}s")
                else:
                    msg = f"ERROR {r['error']}"
                print(f"[{time.perf_counter() - t_all:7.1f}s] {label} seed {seed:2d} {tool:15s} {msg}",
                      file=sys.stderr, flush=True)
        rows.append((kind, label, n, m, opt, {t: summarize(per_tool[t], args.time_limit) for t in tools}))
    total_s = time.perf_counter() - t_all
    load_after = os.getloadavg()
    if raw_out:
        raw_out.close()

    command = "python3 " + " ".join(shlex.quote(a) for a in [str(Path(sys.argv[0]))] + sys.argv[1:])
    out = []
    out.append(f"Time to the optimum per problem kind: pgomea (serial GOMEA; parallel GOMEA on the CPU backend, "
               f"all cores) against PyPI gomea {gomea_version}, {len(seeds)} seeds (1..{len(seeds)}) per instance "
               f"and tool, time limit {args.time_limit:g} s per run, runs one at a time.")
    out.append("")
    out.append(f"- Date: {started.strftime('%Y-%m-%d %H:%M %Z')}; total wall time {total_s / 60:.1f} min")
    out.append(f"- Machine: {machine_line()}; load average (1 min) {load_before[0]:.2f} before, "
               f"{load_after[0]:.2f} after")
    out.append(f"- Command: `{command}`")
    out.append(f"- pgomea: `{args.pgomea}` (sha256 {binary_sha}; repository at {repo_commit}), `run --algo serial|parallel "
               f"--backend cpu --linkage flt --target OPT --time-limit T --json --quiet` (base population 16, IMS factor 4; "
               f"serial with Forced Improvement), configuration `{args.config}` "
               f"(serial {' '.join(CONFIGS[args.config]['serial']) or 'defaults'}; "
               f"parallel {' '.join(CONFIGS[args.config]['parallel']) or 'defaults'})")
    out.append(f"- gomea {gomea_version}: `DiscreteGOMEA(fitness=..., linkage_model=StaticLinkageTree(), "
               f"base_population_size=16, max_number_of_seconds=T, random_seed=seed)`; traps "
               f"`DeceptiveTrapFunction(n, {TRAP_K})`, NK `NKLandscapes(n, {NK_K}, table_seed)` (time to the optimum from "
               f"its generation statistics), MAX-SAT a `GBOFitnessFunctionDiscrete` subclass in Python")
    out.append("")
    out.append("| kind | instance | n | subfunctions | optimum | tool | reached | median time to optimum (s) | "
               "median evaluations | median process wall / CPU (s) | gomea / this tool (median time) |")
    out.append("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    verdict: dict[str, list[float | None]] = {}
    for kind, label, n, m, opt, s in rows:
        g = s["gomea"]
        for tool in tools:
            t = s[tool]
            time_cell = f"> {t['time_limit']:g}" if math.isinf(t["median_time"]) else fmt(t["median_time"])
            evals_cell = "n/a" if math.isinf(t["median_evals"]) else fmt(t["median_evals"])
            if tool == "gomea":
                ratio_cell = ""
            else:
                ratio_cell, r = ratio(g, t)
                if tool == "pgomea serial":
                    verdict.setdefault(kind, []).append(r)
            errors = f" ({t['errors']} errors)" if t["errors"] else ""
            out.append(f"| {kind} | {label} | {n} | {m} | {opt} | {tool} | {t['reached']}/{t['runs']}{errors} | "
                       f"{time_cell} | {evals_cell} | {fmt(t['median_wall'])} / {fmt(t['median_cpu'])} | {ratio_cell} |")
    out.append("")
    out.append(f"Goal: pgomea serial at least {GOAL:g}x faster to the optimum than gomea on every instance of a kind.")
    out.append("")
    for kind, rs in verdict.items():
        known = [r for r in rs if r is not None]
        if len(known) < len(rs):
            out.append(f"- {kind}: not decided (pgomea's median run did not reach the optimum on some instance)")
        elif min(known) >= GOAL:
            out.append(f"- {kind}: met (smallest ratio {min(known):,.1f}x)")
        else:
            out.append(f"- {kind}: NOT met (smallest ratio {min(known):,.1f}x, {GOAL / min(known):.1f}x short)")
    report = "\n".join(out) + "\n"
    shutil.rmtree(scratch, ignore_errors=True)
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
