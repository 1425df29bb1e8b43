#!/usr/bin/env python3
"""The dimod sampler `pgomea.dimod.PGomeaSampler` against dwave-samplers'
`SimulatedAnnealingSampler` at equal time, on float models as dimod users make them: the lowest
energy each finds within 1 s and 10 s (by default).

Models (float biases of 16-17 digits, taken as they are; seeds fixed per size):

- gnp: `dimod.generators.gnp_random_bqm(n, p, "SPIN")`, p such that a variable has about 10
  neighbours, its fields and couplings uniform in [-1, 1) (dimod's default);
- uniform: `dimod.generators.uniform(n, "SPIN")`, the complete graph with biases uniform in
  [-1, 1]; dense (n^2 / 2 couplings), so only up to --dense-max variables;
- regular: a random 3-regular graph (networkx) with Gaussian couplings N(0, 1) and no fields.

Methods, each timed from the call to the returned SampleSet (the reduction to Max-Cut, the
linkage model and dimod's energies included):

- pgomea: one `PGomeaSampler().sample(bqm, time_limit=T, seed=S)` call (the defaults of the
  CPU or the GPU, num_reads 1); its energy is the SampleSet's, dimod's own.
- sa: `SimulatedAnnealingSampler` in this process, restarts one after another (num_reads 1, the
  sweeps doubling from 1000 while a restart takes under a quarter of the time left), until the
  budget is up; its energy is the best of the restarts that ended within the budget.

Usage (pip install ./python dimod dwave-samplers networkx; from the repository root):
  benchmarks/sampler_vs_sa.py [--sizes 100,1000,5000] [--models gnp,uniform,regular]
      [--budgets 1,10] [--seeds 1] [--dense-max 1000] [--out FILE.json]
It prints the machine, the commit and the command, a line per run, and a markdown table: per
model, size and budget the median energy of each method over the seeds, the difference
(pgomea - sa: negative where pgomea is lower, i.e. better) and who is ahead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from bench_common import git_commit, machine_line


def make_model(kind, n, seed):
    import dimod
    import networkx as nx
    import numpy as np

    if kind == "gnp":
        return dimod.generators.gnp_random_bqm(n, min(1.0, 10 / max(1, n - 1)), "SPIN", random_state=seed)
    if kind == "uniform":
        return dimod.generators.uniform(n, "SPIN", seed=seed)
    if kind == "regular":
        graph = nx.random_regular_graph(3, n, seed=seed)
        rng = np.random.default_rng(seed)
        return dimod.BQM.from_ising({v: 0.0 for v in range(n)}, {e: float(rng.normal()) for e in graph.edges})
    raise SystemExit(f"unknown model {kind!r}: gnp, uniform or regular")


def run_pgomea(bqm, seconds, seed):
    from pgomea.dimod import PGomeaSampler

    start = time.perf_counter()
    sampleset = PGomeaSampler().sample(bqm, time_limit=seconds, seed=seed)
    wall = time.perf_counter() - start
    info = sampleset.info
    extra = {k: info[k] for k in ("backend", "evaluations", "stop_reason", "grid", "rounding_bound")}
    return float(sampleset.first.energy), wall, extra


def run_sa(bqm, seconds, seed):
    from dwave.samplers import SimulatedAnnealingSampler

    sampler = SimulatedAnnealingSampler()
    start = time.perf_counter()
    best, sweeps, restarts, k = None, 1000, 0, 0
    while True:
        left = seconds - (time.perf_counter() - start)
        if left <= 0:
            break
        began = time.perf_counter()
        energy = float(sampler.sample(bqm, num_reads=1, num_sweeps=sweeps, seed=seed * 1000 + k).first.energy)
        k += 1
        if time.perf_counter() - start > seconds:
            break
        restarts += 1
        best = energy if best is None else min(best, energy)
        if time.perf_counter() - began < (seconds - (time.perf_counter() - start)) / 4:
            sweeps *= 2
    return best, time.perf_counter() - start, {"restarts": restarts, "last_sweeps": sweeps}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--models", default="gnp,uniform,regular")
    ap.add_argument("--budgets", default="1,10", help="seconds per run")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--methods", default="pgomea,sa")
    ap.add_argument("--dense-max", type=int, default=1000, help="the largest uniform (dense) model")
    ap.add_argument("--out", help="write the runs as JSON here")
    a = ap.parse_args()
    runs = []
    print(f"{machine_line()}; commit {git_commit()}; `{' '.join(sys.argv)}`", flush=True)
    for kind in a.models.split(","):
        for n in [int(s) for s in a.sizes.split(",")]:
            if kind == "uniform" and n > a.dense_max:
                continue
            for seed in [int(s) for s in a.seeds.split(",")]:
                bqm = make_model(kind, n, seed)
                for budget in [float(b) for b in a.budgets.split(",")]:
                    for method in a.methods.split(","):
                        energy, wall, extra = (run_pgomea if method == "pgomea" else run_sa)(bqm, budget, seed)
                        run = {"model": kind, "n": n, "couplings": bqm.num_interactions, "budget_s": budget,
                               "seed": seed, "method": method, "energy": energy, "wall_s": wall, **extra}
                        runs.append(run)
                        print(json.dumps(run), flush=True)
                        if a.out:
                            with open(a.out, "w") as f:
                                json.dump({"runs": runs, "command": sys.argv}, f, indent=1)
    print()
    print("| model | n | couplings | budget | pgomea energy | SA energy | pgomea - SA | ahead |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    keys = sorted({(r["model"], r["n"], r["budget_s"]) for r in runs}, key=lambda k: (a.models.index(k[0]), k[1], k[2]))
    for model, n, budget in keys:
        rs = [r for r in runs if (r["model"], r["n"], r["budget_s"]) == (model, n, budget)]
        med = {}
        for method in ("pgomea", "sa"):
            energies = [r["energy"] for r in rs if r["method"] == method and r["energy"] is not None]
            med[method] = statistics.median(energies) if energies else None
        p, s = med["pgomea"], med["sa"]
        diff = None if p is None or s is None else (p - s if abs(p - s) > 1e-9 else 0.0)
        ahead = "SA has no restart within the budget" if s is None else \
            "" if diff is None else ("pgomea" if diff < 0 else "**SA**" if diff > 0 else "equal")
        show = lambda v: "-" if v is None else f"{v:.4f}"  # noqa: E731
        print(f"| {model} | {n} | {rs[0]['couplings']} | {budget:g} s | {show(p)} | {show(s)} | {show(diff)} | {ahead} |")


if __name__ == "__main__":
    sys.exit(main())
