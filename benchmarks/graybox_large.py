#!/usr/bin/env python3
"""What the GPU adds to a Python gray-box class at large n: the deceptive-trap class of
graybox_vs_gomea.py (k = 5, adjacent blocks, optimum n; one class on `pgomea.GrayBox`, written as
PyPI gomea's documentation writes one) at n = 10^4 and more, solved to its optimum by serial
GOMEA, parallel GOMEA on the CPU backend (all cores) and parallel GOMEA on the GPU, each with the
library's defaults otherwise. PyPI gomea is left out: at n = 400 it already needs over 10 s
(benchmarks/graybox_vs_gomea.py measures it).

Time is the wall time from the class's construction (its tabulation, given apart) to the answer.

Usage: python3 benchmarks/graybox_large.py [--sizes 10000,50000] [--seeds 1] [--time-limit 40] [--out FILE.md]
Needs `pip install ./python` (with a GPU for the cuda rows; without one they say why).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pgomea

from bench_common import tee_stdout
from graybox_vs_gomea import trap_class

CONFIGS = [("serial", None), ("parallel", "cpu"), ("parallel", "cuda")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--time-limit", type=float, default=40.0)
    ap.add_argument("--out", type=Path, help="also write the table to this file")
    args = ap.parse_args()
    tee_stdout(args.out)
    print("| n | algorithm | backend | seed | tabulation s | run s | reached | best | backend used |")
    print("|---:|---|---|---:|---:|---:|---|---:|---|")
    for n in [int(x) for x in args.sizes.split(",")]:
        for seed in [int(x) for x in args.seeds.split(",")]:
            for algorithm, backend in CONFIGS:
                start = time.perf_counter()
                problem = trap_class(pgomea.GrayBox)(n, 5, n).problem()
                tabulated = time.perf_counter() - start
                try:
                    r = pgomea.solve(problem, target=n, time_limit=args.time_limit, seed=seed, algorithm=algorithm,
                                     backend=backend, threads=None if backend else 1)
                except (pgomea.Error, pgomea.BackendError) as e:
                    print(f"| {n} | {algorithm} | {backend or '-'} | {seed} | {tabulated:.2f} | - | error: {e} | | |")
                    continue
                print(f"| {n} | {algorithm} | {backend or '-'} | {seed} | {tabulated:.2f} | {r.time_s:.2f} | "
                      f"{r.reached_target} | {r.best_fitness} | {r.backend} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
