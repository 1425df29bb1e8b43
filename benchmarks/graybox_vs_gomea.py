#!/usr/bin/env python3
"""The same Python gray-box class run by PyPI gomea 1.1 and by the Python package pgomea: time
to the optimum on the CPU.

Each problem is one Python class, written once as gomea's documentation writes a gray-box
function (`number_of_subfunctions`, `inputs_to_subfunction`, `subfunction(i, variables)` on the
whole genotype, members set in `__new__`), and instantiated on `gomea.fitness.
GBOFitnessFunctionDiscrete` and on `pgomea.GrayBox`: only the base class differs.

  * trap:    concatenated deceptive traps, k = 5, adjacent blocks (optimum n: all ones);
  * nk:      adjacent NK landscapes, K = 5, the tables of `gomea.fitness.NKLandscapes(n, 5, seed)`
             (problems_vs_gomea.py's generator; the exact optimum by pgomea's dynamic programming
             over the windows, `pgomea.load` of the same tables written as an MK file);
  * max-sat: SATLIB uniform random 3-SAT (satisfiable: the optimum is the clause count), one
             subfunction per clause, from the data directory's maxsat/ folder.

Each run is its own subprocess, one after the other, seeds 1..N:

  gomea:  gomea.DiscreteGOMEA(fitness=Class(n, ..., value_to_reach=OPT), linkage_model=
          gomea.linkage.StaticLinkageTree(), base_population_size=16, max_number_of_seconds=T,
          random_seed=S).run(); its time is gomea's own clock (`time` of its final statistics,
          from the start of run()) when it reached OPT.
  pgomea: pgomea.solve(Class(n, ...), target=OPT, time_limit=T, seed=S, algorithm=A[, backend=
          "cpu"]) with the library's defaults otherwise (A = serial, and parallel on the CPU
          backend, all cores); its time is the wall time from the class's construction to the
          answer: the tabulation of every subfunction (2^k Python calls each) plus the run
          (`result.time_s`, given apart).

The table gives the median times (a run that missed the optimum counts as infinite), and the
ratio gomea / pgomea per instance; the goal is pgomea at least 10x sooner.

Usage: python3 benchmarks/graybox_vs_gomea.py [--seeds 5] [--time-limit 60] [--quick]
       [--kinds trap,nk,max-sat] [--instances-dir DIR] [--out FILE.md]
Needs `pip install ./python gomea==1.1.0` in the Python that runs it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_common import REPO, censored_median, default_instances_dir, git_commit, last_json_line, machine_line, timed_run
from problems_vs_gomea import gomea_nk_tables, read_cnf, write_mk

WORKER_FLAG = "--worker"
KILL_MARGIN_S = 30.0
GOAL = 10.0
TRAP_SIZES = [100, 200, 400]
NK_INSTANCES = [(100, 101), (200, 201)]  # (n, table seed)
SAT_INSTANCES = ["uf50-01", "uf100-01", "uf150-01"]


# --------------------------------------------------------------------------------------------
# The classes, written once (as gomea's demos write them) on whichever base class is given.
# --------------------------------------------------------------------------------------------
def trap_class(base):
    class Trap(base):
        def __new__(self, number_of_variables, k, value_to_reach):
            self.k = k
            return super().__new__(self, number_of_variables, value_to_reach)

        def number_of_subfunctions(self):
            return self.number_of_variables // self.k

        def inputs_to_subfunction(self, subfunction_index):
            return range(self.k * subfunction_index, self.k * subfunction_index + self.k)

        def subfunction(self, subfunction_index, variables):
            unitation = np.sum(variables[self.inputs_to_subfunction(subfunction_index)])
            return unitation if unitation == self.k else self.k - unitation - 1

    return Trap


def nk_class(base):
    class NK(base):
        def __new__(self, number_of_variables, k, tables, value_to_reach):
            self.k = k
            self.tables = tables
            return super().__new__(self, number_of_variables, value_to_reach)

        def number_of_subfunctions(self):
            return self.number_of_variables - self.k + 1

        def inputs_to_subfunction(self, subfunction_index):
            return range(subfunction_index, subfunction_index + self.k)

        def subfunction(self, subfunction_index, variables):
            key = 0
            for v in variables[self.inputs_to_subfunction(subfunction_index)]:
                key = 2 * key + int(v)
            return float(self.tables[subfunction_index][key])

    return NK


def maxsat_class(base):
    class MaxSat(base):
        def __new__(self, number_of_variables, clauses, value_to_reach):
            self.wanted = [[(abs(lit) - 1, 1 if lit > 0 else 0) for lit in c] for c in clauses]
            return super().__new__(self, number_of_variables, value_to_reach)

        def number_of_subfunctions(self):
            return len(self.wanted)

        def inputs_to_subfunction(self, subfunction_index):
            return [v for v, _ in self.wanted[subfunction_index]]

        def subfunction(self, subfunction_index, variables):
            for v, value in self.wanted[subfunction_index]:
                if variables[v] == value:
                    return 1.0
            return 0.0

    return MaxSat


def make(kind: str, spec: dict, base):
    if kind == "trap":
        return trap_class(base)(spec["n"], spec["k"], spec["optimum"])
    if kind == "nk":
        tables = gomea_nk_tables(spec["n"], spec["k"], spec["table_seed"])
        return nk_class(base)(spec["n"], spec["k"], tables, float(spec["optimum"]))
    n, clauses = read_cnf(Path(spec["file"]))
    return maxsat_class(base)(n, clauses, float(spec["optimum"]))


# --------------------------------------------------------------------------------------------
# Workers (one run per subprocess)
# --------------------------------------------------------------------------------------------
def worker(tool: str, kind: str, spec: dict, seed: int, time_limit: float) -> int:
    optimum = spec["optimum"]
    if tool == "gomea":
        import gomea
        fitness = make(kind, spec, gomea.fitness.GBOFitnessFunctionDiscrete)
        linkage = gomea.linkage.StaticLinkageTree()  # kept referenced: gomea holds only a pointer
        result = gomea.DiscreteGOMEA(fitness=fitness, linkage_model=linkage, base_population_size=16,
                                     max_number_of_seconds=float(time_limit), random_seed=int(seed)).run()
        final = result.getFinalStatistics()
        best = float(final["best_obj_val"])
        out = {"best_fitness": best, "reached_target": best >= optimum, "time_s": float(final["time"]),
               "evaluations": float(final["evaluations"])}
    else:
        import pgomea
        algorithm = tool.split()[1]
        start = time.perf_counter()
        fitness = make(kind, spec, pgomea.GrayBox)
        problem = fitness.problem()
        tabulated = time.perf_counter() - start
        result = pgomea.solve(problem, target=int(optimum), time_limit=time_limit, seed=seed, algorithm=algorithm,
                              backend="cpu" if algorithm == "parallel" else None,
                              threads=None if algorithm == "parallel" else 1)
        wall = time.perf_counter() - start
        out = {"best_fitness": result.best_fitness, "reached_target": result.reached_target, "time_s": wall,
               "tabulate_s": tabulated, "run_s": result.time_s, "evaluations": result.evaluations,
               "backend": result.backend}
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    return 0


def run(tool: str, kind: str, spec: dict, seed: int, time_limit: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), WORKER_FLAG, tool, kind, json.dumps(spec), str(seed),
           f"{time_limit:g}"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p, wall, cpu = timed_run(cmd, time_limit + KILL_MARGIN_S, env=env)
    d = last_json_line(p.stdout) if p is not None else None
    if p is None or p.returncode != 0 or d is None:
        why = "killed (timeout)" if p is None else f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
        return {"ok": False, "error": why, "process_wall_s": wall, "process_cpu_s": cpu}
    d.update(ok=True, process_wall_s=wall, process_cpu_s=cpu)
    return d


def fmt(x: float) -> str:
    if x is None or math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "not reached"
    return f"{x:.3g}"


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == WORKER_FLAG:
        _, _, tool, kind, spec, seed, tl = sys.argv
        return worker(tool, kind, json.loads(spec), int(seed), float(tl))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_dir = default_instances_dir()
    ap.add_argument("--instances-dir", type=Path, default=default_dir)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--quick", action="store_true", help="3 seeds, 20 s per run")
    ap.add_argument("--kinds", default="trap,nk,max-sat")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.quick:
        args.seeds, args.time_limit = 3, 20.0
    for module in ("gomea", "pgomea"):
        if importlib.util.find_spec(module) is None:
            sys.exit(f"graybox_vs_gomea: the package {module} is needed (pip install ./python gomea==1.1.0)")
    kinds = args.kinds.split(",")
    scratch = Path(tempfile.mkdtemp(prefix="graybox_vs_gomea_"))
    instances = []
    if "trap" in kinds:
        instances += [("trap", f"trap k=5 n={n}", {"n": n, "k": 5, "optimum": n}) for n in TRAP_SIZES]
    if "nk" in kinds:
        import pgomea
        for n, table_seed in NK_INSTANCES:
            path = scratch / f"nk-{n}-{table_seed}.mk"
            write_mk(path, n, 5, table_seed)
            optimum = pgomea.load(path).best_known
            instances.append(("nk", f"NK K=5 n={n} (table seed {table_seed})",
                              {"n": n, "k": 5, "table_seed": table_seed, "optimum": optimum}))
    if "max-sat" in kinds:
        for name in SAT_INSTANCES:
            path = args.instances_dir / "maxsat" / f"{name}.cnf"
            if not path.is_file():
                sys.exit(f"graybox_vs_gomea: {path} not found (--instances-dir or $PGOMEA_INSTANCES)")
            instances.append(("max-sat", f"SATLIB {name}", {"file": str(path), "optimum": len(read_cnf(path)[1])}))
    tools = ["pgomea serial", "pgomea parallel", "gomea"]
    started = datetime.datetime.now().astimezone()
    lines = [f"# The same Python gray-box class: PyPI gomea 1.1 against pgomea (Python package)", "",
             f"{started:%Y-%m-%d %H:%M %Z}; {machine_line()}; commit {git_commit()}; {args.seeds} seeds, "
             f"{args.time_limit:g} s per run; `python3 benchmarks/graybox_vs_gomea.py "
             f"{' '.join(sys.argv[1:])}`", "",
             "| instance | pgomea serial: median s (tabulation + run) | pgomea parallel CPU: median s | gomea: median s "
             "| reached (serial/parallel/gomea) | gomea / pgomea serial | gomea / pgomea parallel |",
             "|---|---:|---:|---:|---|---:|---:|"]
    for kind, label, spec in instances:
        runs = {t: [run(t, kind, spec, s, args.time_limit) for s in range(1, args.seeds + 1)] for t in tools}
        for t in tools:
            for s, r in enumerate(runs[t], 1):
                shown = (f"{r['best_fitness']:g} in {r['time_s']:.3f} s" if r["ok"] else r["error"])
                print(f"{label} {t} seed {s}: {shown}", file=sys.stderr, flush=True)
        med = {t: censored_median([r["time_s"] if r["ok"] and r["reached_target"] else math.inf for r in runs[t]])
               for t in tools}
        tab = censored_median([r.get("tabulate_s", math.nan) for r in runs["pgomea serial"] if r["ok"]])
        reached = "/".join(str(sum(r["ok"] and r["reached_target"] for r in runs[t])) for t in tools)

        def ratio(t: str) -> str:
            if math.isinf(med[t]):
                return "n/a"
            if math.isinf(med["gomea"]):
                return f"> {args.time_limit / med[t]:.0f}x"
            return f"{med['gomea'] / med[t]:.1f}x"

        lines.append(f"| {label} | {fmt(med['pgomea serial'])} ({fmt(tab)} + run) | {fmt(med['pgomea parallel'])} "
                     f"| {fmt(med['gomea'])} | {reached} | {ratio('pgomea serial')} | {ratio('pgomea parallel')} |")
    lines += ["", f"Goal: pgomea at least {GOAL:g}x sooner than gomea on every instance."]
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
