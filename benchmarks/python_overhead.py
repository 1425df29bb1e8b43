#!/usr/bin/env python3
"""The Python package's cost against the command line: the fixed cost of one `pgomea.solve`
call, and its share of a 10 s run. Goal: at most 50 ms per call and 2 % of a 10 s run.

Measured on one instance (a G-set graph from the data directory, G22 by default), in this order:

1. Fixed cost per call: `pgomea.solve(problem, max_evaluations=1, seed=S)` repeated (--calls,
   default 30); the Python layer's cost of a call is its wall time less the run's own
   `result.time_s` (which the library counts from the start of its `solve`): options to JSON,
   `RunOptions::resolve`, the solving thread, the result's arrays. For the command line the same
   difference for `pgomea run --instance FILE --max-evals 1 --json -q` is given beside it (process
   start, reading the file). Also timed: building the problem from numpy arrays
   (`pgomea.max_cut`) and `pgomea.load` of the same file.
2. A 10 s run (--seconds): `pgomea.solve(problem, time_limit=10, seed=S)` and `pgomea run
   --time-limit 10 --seed S`, serial GOMEA, one after the other, --repeats times alternating
   (default 3): evaluations per second of each (their ratio is the Python run's throughput
   against the CLI's), and the Python call's wall time beyond its 10 s. Then the same with an
   `on_improvement` callback.

Usage: python3 benchmarks/python_overhead.py [--pgomea target/release/pgomea] [--data DIR]
       [--instance G22] [--calls 30] [--seconds 10] [--repeats 3] [--algorithm serial] [--out FILE.md]
The data directory defaults to $PGOMEA_INSTANCES, else ./instances.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench_common import REPO, default_instances_dir, git_commit, last_json_line, machine_line, tee_stdout


def cli(binary: Path, instance: Path, args: list[str]) -> tuple[dict, float]:
    start = time.perf_counter()
    p = subprocess.run([str(binary), "run", "--instance", str(instance), "--json", "--quiet", *args],
                       capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"python_overhead: pgomea run failed: {p.stderr.strip()}")
    return last_json_line(p.stdout), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pgomea", type=Path, default=REPO / "target" / "release" / "pgomea")
    default_dir = default_instances_dir()
    ap.add_argument("--data", type=Path, default=default_dir)
    ap.add_argument("--instance", default="G22")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--algorithm", default="serial")
    ap.add_argument("--out", type=Path, help="also write the report to this file")
    a = ap.parse_args()
    tee_stdout(a.out)
    import pgomea

    path = a.data / "gset" / f"{a.instance}.txt"
    print(f"{machine_line()}; commit {git_commit()}; {path.name}; `{' '.join(sys.argv)}`\n")
    raw = np.loadtxt(path, dtype=np.int64, skiprows=1)
    n = int(path.read_text().split(None, 1)[0])
    start = time.perf_counter()
    problem = pgomea.max_cut(n, raw[:, :2] - 1, raw[:, 2], name=a.instance)
    from_arrays = time.perf_counter() - start
    start = time.perf_counter()
    pgomea.load(path)
    loaded = time.perf_counter() - start
    backend = [] if a.algorithm == "serial" else ["--backend", "cpu"]
    py_backend = None if a.algorithm == "serial" else "cpu"

    # 1. Fixed cost per call.
    py_cost, cli_cost = [], []
    for seed in range(1, a.calls + 1):
        start = time.perf_counter()
        r = pgomea.solve(problem, algorithm=a.algorithm, backend=py_backend, max_evaluations=1, seed=seed)
        py_cost.append(time.perf_counter() - start - r.time_s)
        d, wall = cli(a.pgomea, path, ["--algo", a.algorithm, *backend, "--max-evals", "1", "--seed", str(seed)])
        cli_cost.append(wall - d["time_s"])
    ms = lambda xs: f"{1000 * statistics.median(xs):.2f} ms (min {1000 * min(xs):.2f}, max {1000 * max(xs):.2f})"  # noqa: E731
    print("| fixed cost of one call | median |")
    print("|---|---:|")
    print(f"| `pgomea.solve`: wall less the run's time_s ({a.calls} calls, max_evaluations=1) | {ms(py_cost)} |")
    print(f"| `pgomea run` process: wall less time_s (process start, reading the file) | {ms(cli_cost)} |")
    print(f"| `pgomea.max_cut` from numpy arrays ({n} vertices, {len(raw)} edges) | {1000 * from_arrays:.1f} ms |")
    print(f"| `pgomea.load` of the file | {1000 * loaded:.1f} ms |")

    # 2. Runs of --seconds.
    rows = []
    for repeat in range(a.repeats):
        for callback in (False, True):
            heard = []
            start = time.perf_counter()
            r = pgomea.solve(problem, algorithm=a.algorithm, backend=py_backend, time_limit=a.seconds, seed=repeat + 1,
                             on_improvement=(lambda t, e, f: heard.append(f)) if callback else None)
            wall = time.perf_counter() - start
            d, cli_wall = cli(a.pgomea, path, ["--algo", a.algorithm, *backend, "--time-limit", f"{a.seconds:g}",
                                               "--seed", str(repeat + 1)])
            rows.append({"callback": callback, "py_eps": r.evaluations / r.time_s, "cli_eps": d["evaluations"] / d["time_s"],
                         "py_over": wall - a.seconds, "py_best": r.best_fitness, "cli_best": d["best_fitness"],
                         "improvements": len(heard)})
    print()
    print(f"| {a.seconds:g} s runs ({a.algorithm}) | Python evaluations/s | CLI evaluations/s | Python / CLI "
          "| Python wall beyond the limit | best (Python, CLI) |")
    print("|---|---:|---:|---:|---:|---|")
    for callback in (False, True):
        rs = [r for r in rows if r["callback"] == callback]
        label = "with on_improvement" if callback else "no callback"
        ratio = statistics.median(r["py_eps"] / r["cli_eps"] for r in rs)
        print(f"| {label} | {statistics.median(r['py_eps'] for r in rs):,.0f} | "
              f"{statistics.median(r['cli_eps'] for r in rs):,.0f} | {ratio:.3f} | "
              f"{1000 * statistics.median(r['py_over'] for r in rs):.1f} ms "
              f"({100 * statistics.median(r['py_over'] for r in rs) / a.seconds:.2f} %) | "
              + "; ".join(f"{r['py_best']}, {r['cli_best']}" for r in rs) + " |")
    print("\n" + json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
