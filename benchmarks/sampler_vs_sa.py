#!/usr/bin/env python3
"""The dimod sampler `pgomea.dimod.PGomeaSampler` against dwave-samplers'
`SimulatedAnnealingSampler`, on G-set graphs given to both as Ising models: the lowest energy
each finds within a time budget (10 s and 60 s by default).

The model of a graph is Max-Cut's Ising form, minimise E(s) = sum_ij w_ij s_i s_j over s in
{-1, +1}^n (no fields); a cut of weight c has energy W - 2c, W the total weight, so the table
also gives the cut (W - E) / 2 as a share of the best-known cut.

- sa: `SimulatedAnnealingSampler` in --sa-processes worker processes (16 by default, one model
  per process, each built from the edge list), each running annealing restarts one after
  another, the number of sweeps doubling while a restart takes under an eighth of the time
  left, until the budget is up (peers_maxcut.py's `run_sa`). Its best energy is the best of
  the restarts that finished within the budget, over all processes; the clock starts before
  the processes start.
- pgomea: one `PGomeaSampler(algorithm=..., backend=...).sample(bqm, time_limit=T, seed=S)`
  call, num_reads 1, timed from the call to the returned SampleSet (the reduction to Max-Cut,
  the linkage model, the GPU's opening and the energies dimod computes included). The energy is
  the SampleSet's, dimod's own.

Usage (on the GPU machine; pip install ./python dimod dwave-samplers):
  benchmarks/sampler_vs_sa.py --data DIR --instances G22,G55,G81 --seeds 1,2,3 --budgets 10,60 \\
      [--methods sa,pgomea] [--algorithm parallel] [--backend cuda] [--sa-processes 16] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from bench_common import default_instances_dir, git_commit, machine_line
from peers_maxcut import best_known, read_gset, run_sa


def ising_model(n, edges):
    import dimod

    bqm = dimod.BinaryQuadraticModel({v: 0.0 for v in range(n)}, {}, 0.0, dimod.SPIN)
    for i, j, w in edges:
        bqm.add_quadratic(i, j, w)
    return bqm


def run_pgomea(bqm, seconds, seed, algorithm, backend):
    from pgomea.dimod import PGomeaSampler

    sampler = PGomeaSampler(algorithm=algorithm, backend=backend)
    start = time.time()
    sampleset = sampler.sample(bqm, time_limit=seconds, seed=seed)
    wall = time.time() - start
    run = sampleset.info["runs"][0]
    return float(sampleset.first.energy), wall, {k: run[k] for k in ("backend", "evaluations", "setup_s", "time_s")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(default_instances_dir()),
                    help="instance data directory (gset/, best_known.csv; default: $PGOMEA_INSTANCES, else ./instances)")
    ap.add_argument("--instances", default="G22,G55,G81")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--budgets", default="10,60", help="seconds per run")
    ap.add_argument("--methods", default="sa,pgomea")
    ap.add_argument("--algorithm", default="parallel")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--sa-processes", type=int, default=16)
    ap.add_argument("--out")
    a = ap.parse_args()
    runs, totals = [], {}
    print(f"{machine_line()}; commit {git_commit()}; `{' '.join(sys.argv)}`", flush=True)
    for name in a.instances.split(","):
        n, edges, _ = read_gset(os.path.join(a.data, "gset", f"{name}.txt"))
        total = totals[name] = sum(w for _, _, w in edges)
        bkv = best_known(a.data, name)
        bqm = ising_model(n, edges)
        for budget in [float(b) for b in a.budgets.split(",")]:
            for seed in [int(s) for s in a.seeds.split(",")]:
                for method in a.methods.split(","):
                    extra = {}
                    if method == "sa":
                        trace = run_sa(n, edges, budget, seed, a.sa_processes)
                        cuts = [cut for t, cut in trace if t <= budget]
                        energy = total - 2 * max(cuts) if cuts else None
                        wall = budget
                    else:
                        energy, wall, extra = run_pgomea(bqm, budget, seed, a.algorithm, a.backend)
                    cut = None if energy is None else (total - energy) / 2
                    run = {"instance": name, "best_known": bkv, "budget_s": budget, "seed": seed, "method": method,
                           "energy": energy, "cut": cut, "wall_s": wall, **extra}
                    runs.append(run)
                    share = f" ({100 * cut / bkv:.2f} % of {bkv})" if cut is not None and bkv else ""
                    print(f"{name} {budget:g}s seed {seed} {method}: energy {energy} cut {cut}{share} "
                          f"wall {wall:.1f} s {extra.get('backend', '')}", flush=True)
                    if a.out:
                        with open(a.out, "w") as f:
                            json.dump({"runs": runs, "sa_processes": a.sa_processes}, f)
    print()
    print("| instance | budget | method | median energy | median cut (% of best known) | seeds |")
    print("|---|---:|---|---:|---:|---|")
    for key in sorted({(r["instance"], r["budget_s"], r["method"]) for r in runs}):
        rs = [r for r in runs if (r["instance"], r["budget_s"], r["method"]) == key]
        energies = [r["energy"] for r in rs if r["energy"] is not None]
        if not energies:
            continue
        med = statistics.median(energies)
        cut = (totals[key[0]] - med) / 2
        bkv = rs[0]["best_known"]
        pct = f" ({100 * cut / bkv:.2f} %)" if bkv else ""
        print(f"| {key[0]} | {key[1]:g} s | {key[2]} | {med:g} | {cut:g}{pct} | "
              + ", ".join(f"{r['energy']:g}" for r in rs if r["energy"] is not None) + " |")


if __name__ == "__main__":
    sys.exit(main())
