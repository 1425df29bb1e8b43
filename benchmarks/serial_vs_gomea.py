#!/usr/bin/env python3
"""Serial GOMEA of pgomea against CWI's GOMEA from PyPI (`pip install gomea`), side by side.

For each instance (Set B tori n = 400, 784, 1600 and Set A n = 100) and each seed, one run of

    * pgomea: `pgomea run --algo serial --local-search off --linkage flt --target <best known>
             --time-limit T --json` (GOMEA as gomea runs it: Forced Improvement, no local search)
  * gomea:  `gomea.DiscreteGOMEA(fitness=gomea.fitness.MaxCut(file, vtr_file),
             linkage_model=gomea.linkage.StaticLinkageTree(), base_population_size=16,
             max_number_of_seconds=T, random_seed=seed)` (interleaved multi-start scheme with
             its defaults: subgeneration factor 4, at most 25 populations)

each in its own subprocess, one after the other (never concurrently). The target (value to reach)
of both is the `best_known` value of the instance in best_known.csv. Prints a markdown table:
runs that reached the target, median time to the target, median evaluations to the target, and
throughput (evaluations per second), with the ratio of the median times gomea / pgomea.

Time to target is each tool's own clock, which in both starts after the instance file has been
read and parsed, and includes building the linkage model, initialising the populations and
everything up to the evaluation that reached the target:
  * pgomea: `time_s` of its JSON output (the `Run` clock; the file is read before it starts);
  * gomea:  `time` of `DiscreteGOMEA.run().getFinalStatistics()` (its clock starts inside
            `run()`; `gomea.fitness.MaxCut(...)` reads the file before that).
The median wall and CPU time of the whole subprocess (process start, Python import, reading the
file, run, exit) are printed as well, and the ratio of the median process CPU times to the target,
which is less sensitive to other work on the machine than the tools' wall clocks.

Evaluations of both tools are full-evaluation equivalents for a gray-box problem: each partial
evaluation counts (number of distinct edges it re-evaluates) / (number of edges), so the two
counts mean the same thing. pgomea reports its GOM steps (solution, linkage-set pairs mixed, in
GOM and FI), gomea does not; so the throughput columns are GOM steps per second (pgomea only),
evaluations per second and subfunction (edge) evaluations per second; for gomea the latter is
derived as evaluations x edges.

Usage: python3 benchmarks/serial_vs_gomea.py [--seeds 10] [--time-limit 120] [--quick]
       [--pgomea target/release/pgomea] [--instances-dir DIR] [--out FILE.md] [--raw FILE.jsonl]
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import importlib.util
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_common import REPO, censored_median, default_instances_dir, git_commit, last_json_line, machine_line, timed_run


# (set in best_known.csv, folder, instance name)
INSTANCES = [
    ("B", "setB", "n0000400i00"),
    ("B", "setB", "n0000784i00"),
    ("B", "setB", "n0001600i00"),
    ("A", "setA", "n0000100i00"),
]

WORKER_FLAG = "--gomea-worker"
# Extra seconds a subprocess may take beyond the run's own time limit before it is killed.
KILL_MARGIN_S = 60.0


# --------------------------------------------------------------------------------------------
# gomea worker: runs in its own process, prints one JSON object on its last stdout line.
# --------------------------------------------------------------------------------------------
def gomea_worker(instance: str, vtr_file: str, vtr: float, seed: int, time_limit: float) -> int:
    t_import = time.perf_counter()
    import gomea  # noqa: PLC0415 (imported here so that the driver works without numpy etc.)

    t0 = time.perf_counter()
    fitness = gomea.fitness.MaxCut(instance, vtr_file)  # reads and parses the instance file
    t1 = time.perf_counter()
    # Keep a reference to the linkage model: DiscreteGOMEA only stores a pointer into it, and a
    # temporary passed inline is freed before run() ("Unknown or unsuitable linkage model").
    linkage = gomea.linkage.StaticLinkageTree()
    opt = gomea.DiscreteGOMEA(
        fitness=fitness,
        linkage_model=linkage,
        base_population_size=16,
        max_number_of_seconds=float(time_limit),
        random_seed=int(seed),
    )
    t2 = time.perf_counter()
    result = opt.run()
    t3 = time.perf_counter()
    final = result.getFinalStatistics()
    best = float(final["best_obj_val"])
    out = {
        "best_fitness": best,
        "reached_target": best >= vtr,
        "time_s": float(final["time"]),  # gomea's own clock, started inside run()
        "evaluations": float(final["evaluations"]),
        "eval_time_s": float(final.get("eval_time", float("nan"))),
        "run_wall_s": t3 - t2,  # wall time of run() as seen from Python
        "read_s": t1 - t0,  # gomea.fitness.MaxCut(): reading the file, building the VIG
        "import_s": t0 - t_import,
        "number_of_variables": int(fitness.number_of_variables),
        "value_to_reach": float(fitness.value_to_reach),
    }
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------
def die(msg: str) -> None:
    print(f"serial_vs_gomea: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_best_known(instances_dir: Path) -> dict[tuple[str, str], dict]:
    path = instances_dir / "best_known.csv"
    if not path.is_file():
        die(f"{path} not found (set --instances-dir or $PGOMEA_INSTANCES)")
    with path.open(newline="") as f:
        return {(r["set"], r["instance"]): r for r in csv.DictReader(f)}


def run_pgomea(binary: Path, instance: Path, target: int, seed: int, time_limit: float) -> dict:
    cmd = [
        str(binary), "run", "--instance", str(instance), "--algo", "serial", "--local-search", "off", "--linkage", "flt",
        "--seed", str(seed), "--target", str(target), "--time-limit", f"{time_limit:g}",
        "--json", "--quiet",
    ]
    p, wall, cpu = timed_run(cmd, time_limit + KILL_MARGIN_S)
    if p is None:
        return {"ok": False, "error": "killed (timeout)", "process_wall_s": wall, "process_cpu_s": cpu}
    d = last_json_line(p.stdout)
    if p.returncode != 0 or d is None:
        return {"ok": False, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}",
                "process_wall_s": wall, "process_cpu_s": cpu}
    return {
        "ok": True,
        "best_fitness": d["best_fitness"],
        "reached_target": bool(d["reached_target"]),
        "time_s": float(d["time_s"]),
        "evaluations": float(d["evaluations"]),
        "subfunction_evaluations": float(d["subfunction_evaluations"]),
        "gom_steps": d.get("gom_steps"),
        "generations": d.get("generations"),
        "populations": d.get("populations"),
        "setup_s": d.get("setup_s"),
        "stop_reason": d.get("stop_reason"),
        "process_wall_s": wall,
        "process_cpu_s": cpu,
    }


def run_gomea(instance: Path, vtr_file: Path, target: int, seed: int, time_limit: float,
              edges: int, workdir: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), WORKER_FLAG, str(instance), str(vtr_file),
           str(target), str(seed), f"{time_limit:g}"]
    # cwd: a scratch folder, so that nothing gomea might write lands in the repository.
    # gomea's optimizer is single-threaded; one BLAS thread keeps numpy (imported by gomea) from
    # starting a thread pool that would add CPU time on the second core.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p, wall, cpu = timed_run(cmd, time_limit + KILL_MARGIN_S, cwd=workdir, env=env)
    if p is None:
        return {"ok": False, "error": "killed (timeout)", "process_wall_s": wall, "process_cpu_s": cpu}
    d = last_json_line(p.stdout)
    if p.returncode != 0 or d is None:
        return {"ok": False, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}",
                "process_wall_s": wall, "process_cpu_s": cpu}
    d["ok"] = True
    d["subfunction_evaluations"] = d["evaluations"] * edges  # derived: evaluations are edges/m
    d["process_wall_s"] = wall
    d["process_cpu_s"] = cpu
    return d


def fmt_num(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if x == 0:
        return "0"
    if abs(x) >= 1e6:
        return f"{x:.3g}".replace("e+0", "e").replace("e+", "e")
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def summarize(runs: list[dict], time_limit: float) -> dict:
    ok = [r for r in runs if r.get("ok")]
    reached = [r for r in ok if r["reached_target"]]
    times = [r["time_s"] if r.get("ok") and r["reached_target"] else math.inf for r in runs]
    evals = [r["evaluations"] if r.get("ok") and r["reached_target"] else math.inf for r in runs]
    cpu_to_target = [r["process_cpu_s"] if r.get("ok") and r["reached_target"] else math.inf for r in runs]
    rate = [r["evaluations"] / r["time_s"] for r in ok if r["time_s"] > 0]
    srate = [r["subfunction_evaluations"] / r["time_s"] for r in ok if r["time_s"] > 0]
    grate = [r["gom_steps"] / r["time_s"] for r in ok if r.get("gom_steps") is not None and r["time_s"] > 0]
    walls = [r["process_wall_s"] for r in runs]
    cpus = [r["process_cpu_s"] for r in runs]
    return {
        "runs": len(runs),
        "reached": len(reached),
        "errors": len(runs) - len(ok),
        "median_time": censored_median(times),
        "median_evals": censored_median(evals),
        "median_cpu_to_target": censored_median(cpu_to_target),
        # Lower bounds of the two medians above: an unreached run would have needed more than
        # the time limit (own clock), and more than the CPU time its whole process used.
        "median_time_lb": censored_median([time_limit if math.isinf(t) else t for t in times]),
        "median_cpu_to_target_lb": censored_median(cpus),
        "evals_per_s": statistics.median(rate) if rate else math.nan,
        "subfn_per_s": statistics.median(srate) if srate else math.nan,
        "gom_steps_per_s": statistics.median(grate) if grate else math.nan,
        "median_wall": statistics.median(walls) if walls else math.nan,
        "median_cpu": statistics.median(cpus) if cpus else math.nan,
        "cpu_share": sum(cpus) / sum(walls) if walls and sum(walls) > 0 else math.nan,
        "best": max((r["best_fitness"] for r in ok), default=None),
        "time_limit": time_limit,
    }


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == WORKER_FLAG:
        _, _, inst, vtr_file, vtr, seed, tl = sys.argv
        return gomea_worker(inst, vtr_file, float(vtr), int(seed), float(tl))

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgomea", type=Path, default=REPO / "target" / "release" / "pgomea",
                    help="pgomea binary (default: target/release/pgomea of this repository)")
    default_dir = default_instances_dir()
    ap.add_argument("--instances-dir", type=Path, default=default_dir,
                    help="instance folder with setA/, setB/ and best_known.csv "
                         "(default: $PGOMEA_INSTANCES, else ./instances)")
    ap.add_argument("--seeds", type=int, default=10, help="seeds 1..N per instance and tool (default 10)")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    ap.add_argument("--quick", action="store_true", help="3 seeds, 30 s per run (overrides --seeds and --time-limit)")
    ap.add_argument("--instances", default=None,
                    help="comma-separated subset of instance names, e.g. n0000400i00,n0001600i00")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown report to this file")
    ap.add_argument("--raw", type=Path, default=None, help="also write every run as one JSON line here")
    args = ap.parse_args()
    if args.quick:
        args.seeds, args.time_limit = 3, 30.0
    if args.seeds < 1 or args.time_limit <= 0:
        die("--seeds must be >= 1 and --time-limit > 0")

    if importlib.util.find_spec("gomea") is None:
        die(f"the Python package `gomea` is not installed for {sys.executable}; "
            "install it with `pip install gomea==1.1.0` (CPython 3.11 wheel)")
    try:
        from importlib.metadata import version
        gomea_version = version("gomea")
    except Exception:  # noqa: BLE001
        gomea_version = "unknown"
    if not (args.pgomea.is_file() and os.access(args.pgomea, os.X_OK)):
        die(f"pgomea binary {args.pgomea} not found; build it with `cargo build --release` "
            "in the repository root or pass --pgomea PATH")

    best_known = load_best_known(args.instances_dir)
    chosen = INSTANCES
    if args.instances:
        names = [s.strip() for s in args.instances.split(",") if s.strip()]
        chosen = [i for i in INSTANCES if i[2] in names]
        if len(chosen) != len(names):
            die(f"--instances: choose among {', '.join(i[2] for i in INSTANCES)}")

    seeds = list(range(1, args.seeds + 1))
    started = datetime.datetime.now().astimezone()
    repo_commit = git_commit()
    binary_sha = hashlib.sha256(args.pgomea.read_bytes()).hexdigest()[:12]
    load_before = os.getloadavg()
    raw_out = args.raw.open("w") if args.raw else None
    rows = []
    scratch = tempfile.mkdtemp(prefix="serial_vs_gomea_")
    t_all = time.perf_counter()
    for set_name, folder, name in chosen:
        row = best_known.get((set_name, name))
        if row is None:
            die(f"({set_name}, {name}) missing from best_known.csv")
        inst = args.instances_dir / folder / f"{name}.txt"
        if not inst.is_file():
            die(f"instance file {inst} not found")
        target = int(row["best_known"])
        n, m = int(row["vertices"]), int(row["edges"])
        vtr_file = Path(scratch) / f"{set_name}_{name}.vtr"
        vtr_file.write_text(f"{target}\n")
        per_tool: dict[str, list[dict]] = {"pgomea": [], "gomea": []}
        for seed in seeds:
            for tool in ("pgomea", "gomea"):
                if tool == "pgomea":
                    r = run_pgomea(args.pgomea, inst, target, seed, args.time_limit)
                else:
                    r = run_gomea(inst, vtr_file, target, seed, args.time_limit, m, scratch)
                r.update({"tool": tool, "set": set_name, "instance": name, "seed": seed, "target": target})
                per_tool[tool].append(r)
                if raw_out:
                    raw_out.write(json.dumps(r) + "\n")
                    raw_out.flush()
                if r.get("ok"):
                    msg = (f"best {r['best_fitness']:g}/{target} "
                           f"{'reached' if r['reached_target'] else 'NOT reached'} "
                           f"t={r['time_s']:.3f}s evals={r['evaluations']:.0f} "
                           f"wall={r['process_wall_s']:.2f}s cpu={r['process_cpu_s']:.2f}s")
                else:
                    msg = f"ERROR {r['error']}"
                print(f"[{time.perf_counter() - t_all:7.1f}s] {set_name}/{name} seed {seed:2d} {tool:6s} {msg}",
                      file=sys.stderr, flush=True)
        rows.append((set_name, name, n, m, target, row["is_optimal"],
                     summarize(per_tool["pgomea"], args.time_limit),
                     summarize(per_tool["gomea"], args.time_limit)))
    total_s = time.perf_counter() - t_all
    load_after = os.getloadavg()
    if raw_out:
        raw_out.close()

    # ---------------------------------------------------------------------------------------
    # Report
    # ---------------------------------------------------------------------------------------
    def time_cell(s: dict) -> str:
        return f"> {s['time_limit']:g}" if math.isinf(s["median_time"]) else fmt_num(s["median_time"])

    def evals_cell(s: dict) -> str:
        return "n/a (median run unreached)" if math.isinf(s["median_evals"]) else fmt_num(s["median_evals"])

    def ratio_cell(p: dict, g: dict, key: str = "median_time") -> str:
        pt, gt = p[key], g[key]
        if math.isinf(pt) and math.isinf(gt):
            return "n/a (both medians unreached)"
        if math.isinf(pt):
            return f"< {gt / p[key + '_lb']:.2g}x (upper bound)"
        if math.isinf(gt):
            return f"> {g[key + '_lb'] / pt:,.0f}x (lower bound)"
        return f"{gt / pt:,.1f}x"

    lines = []
    cmd = "python3 " + " ".join([str(Path(sys.argv[0]))] + sys.argv[1:])
    lines.append(f"Serial GOMEA: pgomea against PyPI gomea {gomea_version}, "
                 f"{len(seeds)} seeds (1..{len(seeds)}) per instance and tool, "
                 f"time limit {args.time_limit:g} s per run, runs one at a time.")
    lines.append("")
    lines.append(f"- Date: {started.strftime('%Y-%m-%d %H:%M %Z')}; total wall time {total_s / 60:.1f} min")
    lines.append(f"- Machine: {machine_line()}; load average (1 min) {load_before[0]:.2f} before, "
                 f"{load_after[0]:.2f} after")
    lines.append(f"- Command: `{cmd}`")
    lines.append(f"- pgomea: `{args.pgomea}` (sha256 {binary_sha}; repository at {repo_commit} when the "
                 "benchmark started), "
                 "`run --algo serial --local-search off --linkage flt --target <best known> --time-limit T --json --quiet` "
                 "(base population 16, IMS factor 4, Forced Improvement)")
    lines.append(f"- gomea {gomea_version}: `DiscreteGOMEA(fitness=MaxCut(file, vtr_file), "
                 "linkage_model=StaticLinkageTree(), base_population_size=16, "
                 "max_number_of_seconds=T, random_seed=seed)` (static linkage tree from the variable "
                 "interaction graph, filtered; IMS factor 4, at most 25 populations; value to reach = best known)")
    lines.append("")
    lines.append("| instance | n | edges | target | tool | reached | median time to target (s) "
                 "| median evaluations to target | GOM steps/s | evaluations/s | edge evaluations/s "
                 "| median process wall / CPU (s) | gomea / pgomea median time | same, by process CPU |")
    lines.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for set_name, name, n, m, target, is_opt, p, g in rows:
        label = f"Set {set_name} {name}"
        for tool, s in (("pgomea", p), ("gomea", g)):
            reached = f"{s['reached']}/{s['runs']}" + (f" ({s['errors']} errors)" if s["errors"] else "")
            ratio = ratio_cell(p, g) if tool == "gomea" else ""
            ratio_cpu = ratio_cell(p, g, "median_cpu_to_target") if tool == "gomea" else ""
            tgt = f"{target}" + ("" if str(is_opt).lower() == "true" else " (not proven optimal)")
            lines.append(f"| {label} | {n} | {m} | {tgt} | {tool} | {reached} | {time_cell(s)} | "
                         f"{evals_cell(s)} | {'n/a' if math.isnan(s['gom_steps_per_s']) else fmt_num(s['gom_steps_per_s'])} | {fmt_num(s['evals_per_s'])} | {fmt_num(s['subfn_per_s'])} | "
                         f"{fmt_num(s['median_wall'])} / {fmt_num(s['median_cpu'])} | {ratio} | {ratio_cpu} |")
    lines.append("")
    lines.append("Columns: *median time to target* is the tool's own clock (starts after the instance file "
                 "is read; includes building the linkage model and initialising populations), a run that "
                 "did not reach the target counting as infinite (`> T` when half or more did not). "
                 "*Evaluations* are full-evaluation equivalents (a partial evaluation counts re-evaluated "
                 "edges / all edges), the same definition in both tools. *evaluations/s* and *edge "
                 "evaluations/s* are medians over all runs (reached or not) of count / own time; gomea's "
                 "edge evaluations are derived as evaluations x edges. *GOM steps/s*: pgomea counts every "
                 "(solution, linkage set) pair it mixes, in GOM and in Forced Improvement (median over runs of "
                 "steps / own time); gomea does not report GOM steps (n/a). *Median process wall / CPU* is "
                 "the whole subprocess (process start, Python import of gomea for gomea, reading the "
                 "instance, the run, exit): wall-clock time and user+system CPU time; wall well above "
                 "CPU means other work on the machine slowed the run down. The last column is the "
                 "ratio of the medians of whole-process CPU time of the runs that reached the target "
                 "(unreached = infinite): less sensitive to other load, but it includes process start, "
                 "import and reading the file.")
    goal = [r for r in rows if r[1] == "n0001600i00"]
    if goal:
        _, _, _, _, _, _, p, g = goal[0]
        if math.isinf(p["median_time"]):
            verdict = "NOT met: pgomea's median run did not reach the optimum"
        elif math.isinf(g["median_time"]):
            verdict = (f"met: gomea's median run did not reach the optimum in {g['time_limit']:g} s, "
                       f"pgomea's median is {p['median_time']:.3g} s")
        else:
            x = g["median_time"] / p["median_time"]
            verdict = f"{'met' if x >= 2 else 'NOT met'}: pgomea is {x:,.1f}x faster to the optimum (median)"
        lines.append("")
        lines.append(f"Goal (pgomea serial at least 2x faster to the optimum than gomea on the n = 1600 torus): {verdict}.")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
