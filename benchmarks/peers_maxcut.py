#!/usr/bin/env python3
"""Max-Cut against a practical peer: pgomea (GPU) against simulated annealing of dwave-samplers on
many CPU processes, on G-set graphs, best cut over time.

For every instance and seed, each method runs once for --time seconds, and its best cut is read at
each of the --at times (1, 10, 60 s by default) from its own record of improvements:

- sa: dwave-samplers' SimulatedAnnealingSampler on the Ising form of Max-Cut (minimise
  sum w_ij s_i s_j over s in {-1, 1}^n; the cut is (W - E) / 2), in --sa-processes worker
  processes, each running annealing restarts one after another (the number of sweeps doubles
  while a restart takes under an eighth of the time left), until the time is up. The best cut at
  time t is the best of the restarts that finished by t, over all processes. The clock starts
  before the worker processes are started (each builds the model from the edge list itself).
- sb: the simulated-bifurcation package (`pip install simulated-bifurcation`, on PyTorch) on the
  GPU: discrete SB with --sb-agents agents on the dense matrix of the Ising form, runs one after
  another (each ended by the time left or its own early stop), each run's best cut computed
  exactly from its spins. The clock starts before the matrix is built.
- pgomea variants: `pgomea run --algo parallel --backend cuda --trace ...` with the variant's
  options (`cpu`: the run's defaults on the CPU backend, all cores, the algorithm too;
  `cpu:NAME=VALUE:FLAG`: the CPU's defaults with `--NAME VALUE --FLAG`, e.g.
  `cpu:anneal-growth=1` or `cpu:algo=serial`); its clock starts when the process
  has read the instance (the GPU's opening and the linkage model's build count).

An instance is a G-set graph's name (read from the data directory, with its best-known value)
or the path of a graph file in the G-set format (e.g. a spin glass written by `pgomea generate
torus --dims 3 --weights gaussian`; its `c optimum V` comment, when there is one, is the
reference value).

Usage (on the GPU machine; dimod and dwave-samplers, and for sb simulated-bifurcation, installed):
  benchmarks/peers_maxcut.py --pgomea target/release/pgomea --data DIR --instances G22,G55 \
      --seeds 1,2,3 --time 60 --out OUT [--methods sa,paper,hybrid] [--sa-processes 16]
  benchmarks/peers_maxcut.py ... --instances sg3d-L10.txt,sg3d-L22.txt  (files: no --data needed)

Writes OUT/peers.json (every run with its record of improvements) and prints a table of the best
cut at each time, per instance and method (median over seeds, and each seed), as a share of the
best-known value.
"""

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time

from bench_common import default_instances_dir

# pgomea's variants: the paper's parallel GOMEA, and the hybrid (the `run` defaults of the binary
# under test are what `default` runs).
VARIANTS = {
    "paper": ["--no-fi", "--local-search", "off"],
    "fi": ["--fi", "--local-search", "off"],
    "ls": ["--no-fi", "--local-search", "offspring"],
    "hybrid": ["--fi", "--local-search", "offspring"],
    "default": [],
    "cpu": [],
}


# Variants that run on the CPU backend (all cores) instead of the GPU: `cpu` and `cpu:...`, which
# leave the algorithm to the run's default, as a user without a GPU gets it.
def on_the_cpu(variant):
    return variant == "cpu" or variant.startswith("cpu:")


def variant_options(method):
    """The pgomea options of a method name: a preset of VARIANTS, or `anneal-N` (annealed local
    search of every new population, N sweeps, no FI) and `memetic-N` (FI, and annealed local
    search of the offspring too)."""
    if method in VARIANTS:
        return VARIANTS[method]
    if method.startswith("cpu:"):
        # `cpu:anneal-growth=2:anneal-only`: the CPU backend's defaults with these options.
        options = []
        for option in method.split(":")[1:]:
            name, _, value = option.partition("=")
            options += [f"--{name}"] + ([value] if value else [])
        return options
    kind, _, sweeps = method.partition("-")
    if kind == "anneal" and sweeps.isdigit():
        return ["--no-fi", "--local-search", "initial", "--anneal-sweeps", sweeps]
    if kind == "memetic" and sweeps.isdigit():
        return ["--fi", "--local-search", "offspring", "--anneal-sweeps", sweeps]
    raise SystemExit(f"unknown method {method}")


def read_gset(path):
    """The vertices and edges (0-based) of a G-set file, and its `c optimum V` value if it states
    one (comment lines start with `c`)."""
    n, edges, optimum = None, [], None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "c":
                if len(parts) == 3 and parts[1] == "optimum":
                    optimum = int(parts[2])
                continue
            if n is None:
                n = int(parts[0])
            else:
                i, j, w = parts
                edges.append((int(i) - 1, int(j) - 1, int(w)))
    return n, edges, optimum


def is_file_instance(name):
    return os.sep in name or name.endswith((".txt", ".gset", ".rud", ".mc"))


def g_set_row(data, name):
    """The row of G-set graph `name` in best_known.csv (set, instance, vertices, edges, best known,
    ...): set C (the paper's Set C) or G (the rest); None when it is not there."""
    with open(os.path.join(data, "best_known.csv")) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) > 4 and parts[1] == name and parts[0] in ("C", "G"):
                return parts
    return None


def best_known(data, name):
    row = g_set_row(data, name)
    return int(row[4]) if row else None


def sa_worker(args):
    """One process: annealing restarts until the deadline; returns [(time, cut)]."""
    n, edges, t0, deadline, seed = args
    import dimod
    from dwave.samplers import SimulatedAnnealingSampler

    bqm = dimod.BinaryQuadraticModel({}, {(i, j): w for i, j, w in edges}, 0.0, dimod.SPIN)
    for v in range(n):
        bqm.add_variable(v, 0.0)
    total = sum(w for _, _, w in edges)
    sampler = SimulatedAnnealingSampler()
    sweeps, k, out = 250, 0, []
    while time.time() < deadline:
        start = time.time()
        result = sampler.sample(bqm, num_reads=1, num_sweeps=sweeps, seed=(seed * 1_000_003 + k) % (2**31))
        k += 1
        now = time.time()
        if now > deadline:
            break
        energy = result.first.energy
        out.append((now - t0, int(round((total - energy) / 2))))
        if (now - start) * 8 < deadline - now and sweeps < 1 << 20:
            sweeps *= 2
    return out


def run_sa(n, edges, seconds, seed, processes):
    t0 = time.time()
    deadline = t0 + seconds
    with mp.get_context("fork").Pool(processes) as pool:
        parts = pool.map(sa_worker, [(n, edges, t0, deadline, seed * 1000 + p) for p in range(processes)])
    points = sorted(p for part in parts for p in part)
    trace, best = [], None
    for t, cut in points:
        if best is None or cut > best:
            best = cut
            trace.append((t, cut))
    return trace


def run_sb(n, edges, seconds, seed, agents):
    """The simulated-bifurcation package on the GPU: discrete SB runs one after another until the
    time is up; returns [(time, cut)], each cut counted exactly from the run's best spins."""
    import numpy as np
    import simulated_bifurcation as sb
    import torch

    t0 = time.time()
    torch.manual_seed(seed)
    ends = np.array([(i, j) for i, j, _ in edges], dtype=np.int64).reshape(-1, 2)
    weights = np.array([w for _, _, w in edges], dtype=np.int64)
    # s^T Q s with Q upper triangular is the Ising energy sum_ij w_ij s_i s_j.
    q = torch.zeros((n, n), dtype=torch.float32, device="cuda")
    q.index_put_((torch.from_numpy(ends[:, 0]).cuda(), torch.from_numpy(ends[:, 1]).cuda()),
                 torch.from_numpy(weights).float().cuda(), accumulate=True)
    trace, best = [], None
    while True:
        left = seconds - (time.time() - t0)
        if left < 0.2:
            break
        spins, _ = sb.minimize(q, domain="spin", device="cuda", agents=agents, mode="discrete",
                               verbose=False, timeout=left - 0.1)
        now = time.time() - t0
        if now > seconds:
            break
        s = spins.detach().cpu().numpy().reshape(-1).astype(np.int64)
        cut = int(weights[s[ends[:, 0]] != s[ends[:, 1]]].sum())
        if best is None or cut > best:
            best = cut
            trace.append((now, cut))
    return trace


def run_pgomea(binary, data, name, variant, seconds, seed, out):
    if is_file_instance(name):
        where = ["--instance", name]
    else:
        row = g_set_row(data, name)
        if row is None:
            raise SystemExit(f"{name}: not in {data}/best_known.csv as a G-set graph")
        where = ["--instances-dir", data, "--set", row[0], "--name", name]
    label = os.path.splitext(os.path.basename(name))[0]
    trace_file = os.path.join(out, f"trace-{label}-{variant}-{seed}.csv")
    on_cpu = on_the_cpu(variant)
    algo = [] if on_cpu else ["--algo", "parallel"]
    cmd = [binary, "run", *where, *algo,
           "--backend", "cpu" if on_cpu else "cuda", "--time-limit", str(seconds), "--seed", str(seed), "--trace", trace_file,
           "--json", "--quiet"] + variant_options(variant)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr}")
    result = json.loads(done.stdout)
    trace = []
    with open(trace_file) as f:
        next(f)
        for line in f:
            t, _, best = line.strip().split(",")
            trace.append((float(t), int(best)))
    return trace, result


def best_at(trace, t):
    best = None
    for time_s, cut in trace:
        if time_s <= t:
            best = cut
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgomea", required=True)
    ap.add_argument("--data", default=str(default_instances_dir()),
                    help="instance data directory (gset/, best_known.csv) for G-set names (default: $PGOMEA_INSTANCES, else ./instances)")
    ap.add_argument("--instances", default="G22,G55,G81")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--time", type=float, default=60.0)
    ap.add_argument("--at", default="1,10,60")
    ap.add_argument("--methods", default="sa,paper,default")
    ap.add_argument("--sa-processes", type=int, default=16)
    ap.add_argument("--sb-agents", type=int, default=1024)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    at = [float(x) for x in a.at.split(",")]
    runs = []
    for name in a.instances.split(","):
        if is_file_instance(name):
            n, edges, bkv = read_gset(name)
        else:
            path = os.path.join(a.data, "gset", f"{name}.txt")
            if not os.path.exists(path):
                raise SystemExit(f"{name}: no {path} (give --data DIR or set $PGOMEA_INSTANCES)")
            n, edges, _ = read_gset(path)
            bkv = best_known(a.data, name)
        for seed in [int(s) for s in a.seeds.split(",")]:
            for method in a.methods.split(","):
                started = time.time()
                if method == "sa":
                    trace, extra = run_sa(n, edges, a.time, seed, a.sa_processes), {}
                elif method == "sb":
                    trace, extra = run_sb(n, edges, a.time, seed, a.sb_agents), {}
                else:
                    trace, result = run_pgomea(a.pgomea, a.data, name, method, a.time, seed, a.out)
                    extra = {k: result.get(k) for k in ("backend", "generations", "populations", "evaluations", "gom_steps")}
                run = {"instance": name, "best_known": bkv, "method": method, "seed": seed, "time_limit_s": a.time,
                       "best_at": {str(t): best_at(trace, t) for t in at}, "trace": trace, **extra}
                runs.append(run)
                print(f"{name} {method} seed {seed}: " + ", ".join(f"{t:g}s {run['best_at'][str(t)]}" for t in at)
                      + f" ({time.time() - started:.1f} s wall)", flush=True)
                with open(os.path.join(a.out, "peers.json"), "w") as f:
                    json.dump({"runs": runs, "at": at, "sa_processes": a.sa_processes, "sb_agents": a.sb_agents,
                               "variants": VARIANTS}, f)
    # The table: per instance and method, each time: median over seeds, and the seeds.
    print()
    print("| instance | best known | method | " + " | ".join(f"best at {t:g} s (median; seeds)" for t in at) + " |")
    print("|---|---:|---|" + "---:|" * len(at))
    keys = sorted({(r["instance"], r["method"]) for r in runs}, key=lambda k: (a.instances.split(",").index(k[0]), k[1]))
    for inst, method in keys:
        rs = [r for r in runs if r["instance"] == inst and r["method"] == method]
        bkv = rs[0]["best_known"]
        cells = []
        for t in at:
            vals = [r["best_at"][str(t)] for r in rs]
            known = [v for v in vals if v is not None]
            med = statistics.median(known) if len(known) == len(vals) else None
            pct = f" ({100 * med / bkv:.2f} %)" if med is not None and bkv else ""
            cells.append(f"{med if med is not None else '-'}{pct}; " + ", ".join(str(v) if v is not None else "-" for v in vals))
        print(f"| {inst} | {bkv} | {method} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
