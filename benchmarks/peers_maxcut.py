#!/usr/bin/env python3
"""pgomea against practical peers, best value over time and time to target: simulated annealing
of dwave-samplers on CPU processes, the simulated-bifurcation package on the GPU, and pgomea's
variants on the GPU or on the CPU, for a list of instances and seeds; runs one at a time on all
CPUs or packed side by side on disjoint CPU sets.

For every instance and seed, each method runs once for --time seconds, and its best value is read
at each of the --at times (1, 10, 60 s by default) and at the times it first reaches 99 %, 99.9 %
and 100 % of the reference value, from its own record of improvements:

- sa: dwave-samplers' SimulatedAnnealingSampler on the Ising form of Max-Cut (minimise
  sum w_ij s_i s_j over s in {-1, 1}^n; the cut is (W - E) / 2), in --sa-processes worker
  processes (by default one per CPU of the run), each running annealing restarts one after
  another (the number of sweeps doubles while a restart takes under an eighth of the time left)
  until the time is up; a restart that would end after it, at the pace of the one before, is not
  started. The best cut at time t is the best of the restarts that finished by t, over all
  processes. The clock starts before the worker processes are started (each builds the model from
  the edge list itself); reading the file and importing dimod come before it, once per slot.
  MAX-SAT (DIMACS cnf, clauses of 1 to 3 distinct variables) goes to SA by an exact reduction: with
  u_i = 1 - (literal i), a clause is unsatisfied by u1 u2 u3 = u1 u2 + u1 u3 + u2 u3 +
  min over a in {0, 1} of a (1 - u1 - u2 - u3), so the quadratic model over the variables and one
  auxiliary variable a per clause has, at its best a for each assignment, exactly the unsatisfied
  clauses as its energy; each restart's assignment is scored by counting the clauses it satisfies.
  NK landscapes' tables of K variables have no such reduction short of many auxiliary variables (a
  different search space): there, and on any other instance that is no graph and no cnf,
  --sa-elsewhere says what runs instead (`anneal` by default).
- anneal: pgomea's multi-start annealing alone, the control of the hybrid (`--anneal-only`), on
  every CPU of the run (parallel GOMEA's CPU backend, which anneals a population's solutions on
  all threads; serial GOMEA's too): populations of 16, 32, 64, ... solutions, each
  annealed with the default sweeps (3000, or 10000 on fewer than 8 threads) doubling from
  population to population, as SA's restarts double, and brought to a local optimum, no GOM. SA's stand-in on every class: against
  `cpu` it measures what GOM adds to the same annealing, and next to `sa` on Max-Cut it shows how
  far the stand-in is from the reference annealer.
- sb: the simulated-bifurcation package (`pip install simulated-bifurcation`, on PyTorch) on the
  GPU: discrete SB with --sb-agents agents on the dense matrix of the Ising form, runs one after
  another (each ended by the time left or its own early stop), each run's best cut computed
  exactly from its spins. The clock starts before the matrix is built. Max-Cut only.
- pgomea variants: `pgomea run --algo parallel --backend cuda --trace ...` with the variant's
  options (`cpu`: the run's defaults on the CPU backend, all CPUs of the run, the algorithm too,
  as a user without a GPU gets them; `cpu:NAME=VALUE:FLAG`: the CPU's defaults with `--NAME VALUE
  --FLAG`, e.g. `cpu:anneal-growth=1` or `cpu:algo=serial`); its clock starts when the process
  starts (reading the instance, the GPU's opening and the linkage model's build count).

Instances (comma-separated, in any mix):
- a G-set graph's name, read from the data directory with its best-known value (best_known.csv);
- a file: a graph in the G-set format (its `c optimum V` comment, when there is one, is the
  reference), or any instance `pgomea run --instance` reads (.nk, .cnf, ...; no SA there);
- a generated instance, made with `pgomea generate ... --seed --instance-seed` into OUT/instances
  (its stated optimum, when it has one, is the reference):
    torus2d-pm1-L, torus2d-gauss-L, torus3d-pm1-L, torus3d-gauss-L  spin glasses of L^2 or L^3
        spins, +-1 or Gaussian couplings (round(N(0,1) * 10^5)), periodic;
    random-N-M        a sparse random graph of N vertices and M edges of weight 1 (as G55-G70);
    nk-adjacent-N-K   an NK landscape, sliding windows of K (optimum known);
    nk-random-N-K     an NK landscape, K - 1 random neighbours (optimum unknown);
    sat-N-M           satisfiable (planted) random 3-SAT, N variables, M clauses (optimum M);
- a preset: @every-class (one instance of each class of issue 56: G-set random and toroidal
  graphs, 2D and 3D glasses +-1 and Gaussian, a sparse random graph, an NK landscape, MAX-SAT),
  @every-size (each class at 10^3 to 10^5 variables).
Where no reference value is known, the best value any run of this call found is the reference
(marked `*` in the tables).

CPUs: every run is pinned with `taskset -c` to a slot of --cpus-per-run CPUs taken in order from
--cpus, and as many runs go at once as there are slots: `--cpus 0-15 --cpus-per-run 2` compares
on two cores, eight runs at a time (the methods of one instance and seed side by side); by
default a run has every CPU and runs alone. Before it starts, the script prints the plan (the
runs, the slots and the wall time they will take); --max-wall refuses a plan that takes longer,
--dry-run prints it and stops. GPU methods (sb, pgomea on cuda) need one slot.

Usage (dimod and dwave-samplers installed for sa; the binary built with `cargo build --release`):
  benchmarks/peers_maxcut.py --pgomea target/release/pgomea --instances G22,G55 \\
      --seeds 1,2,3 --time 60 --out OUT [--methods sa,paper,default]      (GPU against SA-16)
  benchmarks/peers_maxcut.py --pgomea target/release/pgomea --instances @every-class \\
      --methods cpu,sa --time 10 --cpus 0-15 --cpus-per-run 2 --out OUT     (CPU parity, 2 cores)

Writes OUT/peers.json (every run with its record of improvements, saved after each run),
OUT/instances (the generated ones), OUT/traces (pgomea's) and OUT/report.md (what it prints: the
machine, the plan, a line per run and the tables: best at each time, time to target, and where
`cpu` ran beside a baseline, the parity of the two). --tables-from OUT/peers.json prints the
tables of a stored call again (one cut short, say).
"""

import argparse
import concurrent.futures
import importlib.util
import json
import math
import multiprocessing as mp
import os
import queue
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench_common import censored_median, default_instances_dir, git_commit, machine_line, tee_stdout

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

# Methods that are another method's spelling: `anneal`, SA's stand-in (see the help above).
ALIASES = {"anneal": "cpu:algo=parallel:anneal-only:anneal-growth=2"}

# The shares of the reference value whose first time the time-to-target table shows.
TARGETS = (0.99, 0.999, 1.0)

# The presets of --instances. The 3D glass of 15^3 spins is the one of the first numbers.
PRESETS = {
    "@every-class": ["G22", "G65", "torus2d-pm1-100", "torus2d-gauss-100", "torus3d-pm1-15",
                     "torus3d-gauss-15", "random-10000-25000", "nk-random-1000-5", "sat-10000-42000"],
    "@every-size": ["G22", "G55", "G65", "G81",
                    "torus2d-pm1-32", "torus2d-pm1-100", "torus2d-pm1-316",
                    "torus2d-gauss-32", "torus2d-gauss-100", "torus2d-gauss-316",
                    "torus3d-pm1-10", "torus3d-pm1-15", "torus3d-pm1-22", "torus3d-pm1-46",
                    "torus3d-gauss-10", "torus3d-gauss-15", "torus3d-gauss-22", "torus3d-gauss-46",
                    "random-10000-25000", "random-100000-250000",
                    "nk-adjacent-10000-5", "nk-random-1000-5", "sat-1000-4200", "sat-10000-42000"],
}

# Generated instances: the name's pattern, `pgomea generate`'s arguments and the file's extension.
GENERATED = [
    (re.compile(r"torus([23])d-(pm1|gauss)-(\d+)$"),
     lambda m: ["torus", "--dims", m[1], "--side", m[3], "--weights", "pm1" if m[2] == "pm1" else "gaussian"], ".txt"),
    (re.compile(r"random-(\d+)-(\d+)$"),
     lambda m: ["random", "--n", m[1], "--m", m[2], "--min-weight", "1", "--max-weight", "1"], ".txt"),
    (re.compile(r"nk-(adjacent|random)-(\d+)-(\d+)$"),
     lambda m: ["nk", "--n", m[2], "--k", m[3], "--neighbourhood", m[1]], ".nk"),
    (re.compile(r"sat-(\d+)-(\d+)$"), lambda m: ["sat", "--n", m[1], "--m", m[2]], ".cnf"),
]

GRAPH_EXTENSIONS = (".txt", ".gset", ".rud", ".mc")

# Seconds a run takes beyond its time limit, for the plan: pgomea ends within 0.05 s of its limit
# and SA's pool of worker processes starts and ends in about 0.2 s (dev machine, 2026-12-07); a
# slot's first SA run also starts its SA process (importing dimod, about 1 s), and the first SA run
# of an instance in a slot reads the file, about 1.5 s per 10^6 edges or clauses.
OVERHEAD_S = {"pgomea": 0.1, "sa": 0.2, "sb": 3.0}
SA_START_S = 1.0
SA_READ_S_PER_EDGE = 1.5e-6


def resolve(method):
    return ALIASES.get(method, method)


# Variants that run on the CPU backend instead of the GPU: `cpu` and `cpu:...`, which leave the
# algorithm to the run's default, as a user without a GPU gets it.
def on_the_cpu(variant):
    variant = resolve(variant)
    return variant == "cpu" or variant.startswith("cpu:")


def variant_options(method):
    """The pgomea options of a method name: a preset of VARIANTS, an alias, or `anneal-N`
    (annealed local search of every new population, N sweeps, no FI) and `memetic-N` (FI, and
    annealed local search of the offspring too)."""
    method = resolve(method)
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
    raise ValueError(f"unknown method {method}")


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


def read_cnf(path):
    """The variables and clauses (lists of literals, 1-based with their sign) of a DIMACS cnf file
    whose clauses SA's reduction takes: 1 to 3 distinct variables each."""
    n, clauses, clause = None, [], []
    with open(path) as f:
        for number_, line in enumerate(f, 1):
            parts = line.split()
            if not parts or parts[0] in ("c", "%"):
                continue
            if parts[0] == "p":
                if len(parts) != 4 or parts[1] != "cnf":
                    raise ValueError(f"{path}:{number_}: SA takes `p cnf N M` files, not {line.strip()!r}")
                n = int(parts[2])
                continue
            for literal in map(int, parts):
                if literal != 0:
                    clause.append(literal)
                    continue
                if not 1 <= len({abs(x) for x in clause}) == len(clause) <= 3:
                    raise ValueError(f"{path}:{number_}: SA's reduction takes clauses of 1 to 3 distinct variables")
                clauses.append(clause)
                clause = []
    if n is None:
        raise ValueError(f"{path}: no `p cnf N M` line")
    return n, clauses, None


def is_file_instance(name):
    return os.sep in name or name.endswith(GRAPH_EXTENSIONS + (".nk", ".mk", ".cnf", ".wcnf", ".qubo", ".ising"))


def g_set_row(data, name):
    """The row of G-set graph `name` in best_known.csv (set, instance, vertices, edges, best known,
    ...): set C (the paper's Set C) or G (the rest); None when it is not there."""
    with open(os.path.join(data, "best_known.csv")) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) > 4 and parts[1] == name and parts[0] in ("C", "G"):
                return parts
    return None


class Instance:
    """One instance of the call: its label, the file SA reads (graphs only), pgomea's arguments
    for it, its reference value and the `pgomea generate` arguments that make it (if generated)."""

    def __init__(self, label, sa_path, pgomea_where, reference=None, generate=None, edges=0):
        # sa_path: the file SA reads, a graph (Max-Cut) or a cnf (MAX-SAT); None where SA takes none.
        self.label, self.sa_path, self.pgomea_where = label, sa_path, pgomea_where
        self.reference, self.generate, self.edges = reference, generate, edges

    def is_graph(self):
        return self.sa_path is not None and self.sa_path.endswith(GRAPH_EXTENSIONS)


def parse_instances(names, data, out, instance_seed):
    """The instances of --instances, checked (not generated yet): a clear error for a name that is
    none of the kinds the help lists."""
    expanded = []
    for name in names.split(","):
        name = name.strip()
        if name in PRESETS:
            expanded += PRESETS[name]
        elif name.startswith("@"):
            raise SystemExit(f"--instances: no preset {name} (presets: {', '.join(PRESETS)})")
        elif name:
            expanded.append(name)
    if not expanded:
        raise SystemExit("--instances: no instance given")
    instances = []
    for name in dict.fromkeys(expanded):
        generated = next(((pattern.match(name), args, ext) for pattern, args, ext in GENERATED if pattern.match(name)), None)
        if generated:
            match, args, ext = generated
            path = os.path.join(out, "instances", name + ext)
            # The edges or clauses, for the plan's estimate of SA's reading: L^d spins of d edges each.
            edges = (int(match[3]) ** int(match[1]) * int(match[1]) if name.startswith("torus")
                     else int(match[2]) if name.startswith(("random", "sat")) else 0)
            instances.append(Instance(name, path if ext in (".txt", ".cnf") else None, ["--instance", path],
                                      generate=args(match) + ["--seed", str(instance_seed), "--output", path],
                                      edges=edges))
        elif is_file_instance(name):
            if not os.path.exists(name):
                raise SystemExit(f"--instances: {name}: no such file")
            label = os.path.splitext(os.path.basename(name))[0]
            reference, edges = None, 0
            if name.endswith(GRAPH_EXTENSIONS):
                _, edge_list, reference = read_gset(name)
                edges = len(edge_list)
            elif name.endswith(".cnf"):
                edges = len(read_cnf(name)[1])
            sa_path = name if name.endswith(GRAPH_EXTENSIONS + (".cnf",)) else None
            instances.append(Instance(label, sa_path, ["--instance", name], reference, edges=edges))
        else:
            if not os.path.exists(os.path.join(data, "best_known.csv")):
                raise SystemExit(f"--instances: {name} is no file nor generated instance, and {data} has no "
                                 f"best_known.csv for G-set names (give --data DIR or set $PGOMEA_INSTANCES)")
            row = g_set_row(data, name)
            path = os.path.join(data, "gset", f"{name}.txt")
            if row is None or not os.path.exists(path):
                raise SystemExit(f"--instances: {name}: not a G-set graph of {data} (best_known.csv and gset/{name}.txt), "
                                 "nor a file, nor a generated instance (see --help)")
            instances.append(Instance(name, path, ["--instances-dir", data, "--set", row[0], "--name", name],
                                      int(row[4]), edges=int(row[3])))
    labels = [i.label for i in instances]
    for label in labels:
        if labels.count(label) > 1:
            raise SystemExit(f"--instances: two instances are called {label}")
    return instances


def generate(binary, instance):
    """Writes a generated instance and takes its stated optimum (`optimum V` on stdout) as the
    reference."""
    os.makedirs(os.path.dirname(instance.generate[-1]), exist_ok=True)
    done = subprocess.run([binary, "generate", *instance.generate], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pgomea generate {' '.join(instance.generate)} failed: {done.stderr.strip()}")
    words = done.stdout.split()
    if len(words) == 2 and words[0] == "optimum" and words[1] != "unknown":
        instance.reference = int(words[1])


# The instance the SA worker processes build their model from, set before the pool forks them so
# that each inherits it instead of receiving a pickled copy: (vertices, edges) of a graph, or
# (variables, clauses) of a cnf.
_MODEL = None


def max_cut_model(n, edges):
    """The Ising form of Max-Cut and the cut of a sample: (W - E) / 2."""
    import dimod

    bqm = dimod.BinaryQuadraticModel({}, {(i, j): w for i, j, w in edges}, 0.0, dimod.SPIN)
    for v in range(n):
        bqm.add_variable(v, 0.0)
    total = sum(w for _, _, w in edges)
    return bqm, lambda result: int(round((total - result.first.energy) / 2))


def max_sat_model(n, clauses):
    """MAX-SAT's exact quadratic model (see the help: one auxiliary variable per clause, variable
    n + c for clause c) and the clauses satisfied by a sample's assignment, counted."""
    import dimod
    import numpy as np

    linear, quadratic, offset = {}, {}, 0

    def add(a, b, coefficient):  # coefficient * a * b over {0, 1}; a None factor is 1
        nonlocal offset
        if a is None and b is None:
            offset += coefficient
        elif a is None or b is None:
            v = a if b is None else b
            linear[v] = linear.get(v, 0) + coefficient
        else:
            quadratic[(a, b)] = quadratic.get((a, b), 0) + coefficient

    for c, clause in enumerate(clauses):
        # u = 1 - x_v for a literal v, u = x_v for -v: as pairs (constant, sign of x_v).
        us = [(1, -1, abs(x) - 1) if x > 0 else (0, 1, abs(x) - 1) for x in clause]
        aux = n + c
        if len(us) == 1:
            (a1, b1, v1), = us
            add(None, None, a1)
            add(v1, None, b1)
            continue
        for i in range(len(us)):
            for j in range(i + 1, len(us)):
                (a1, b1, v1), (a2, b2, v2) = us[i], us[j]
                add(None, None, a1 * a2)
                add(v2, None, a1 * b2)
                add(v1, None, a2 * b1)
                add(v1, v2, b1 * b2)
        if len(us) == 3:
            add(aux, None, 1 - sum(a for a, _, _ in us))
            for _, b, v in us:
                add(v, aux, -b)
    bqm = dimod.BinaryQuadraticModel(linear, quadratic, offset, dimod.BINARY)
    for v in range(n):
        bqm.add_variable(v, 0.0)
    width = max(len(c) for c in clauses)
    # Each clause padded with its first literal (which changes no clause's value).
    padded = [c + [c[0]] * (width - len(c)) for c in clauses]
    var = np.array([[abs(x) - 1 for x in c] for c in padded])
    positive = np.array([[x > 0 for x in c] for c in padded])

    def satisfied(result):
        sample = result.first.sample
        x = np.array([sample[v] for v in range(n)], dtype=bool)
        count = int(np.any(x[var] == positive, axis=1).sum())
        # The model's energy is at least the unsatisfied clauses (equal at the best auxiliaries).
        if len(clauses) - count > result.first.energy + 1e-6:
            raise RuntimeError(f"the MAX-SAT model is wrong: energy {result.first.energy} below "
                               f"{len(clauses) - count} unsatisfied clauses")
        return count

    return bqm, satisfied


def sa_worker(args):
    """One process: annealing restarts until the deadline; returns [(time, value)]."""
    t0, deadline, seed = args
    from dwave.samplers import SimulatedAnnealingSampler

    kind, n, terms = _MODEL
    bqm, score = (max_cut_model if kind == "max-cut" else max_sat_model)(n, terms)
    sampler = SimulatedAnnealingSampler()
    sweeps, k, out, pace = 250, 0, [], None
    while time.time() < deadline:
        start = time.time()
        # A restart that would end after the deadline cannot count: it is not started.
        if pace is not None and start + pace * sweeps > deadline:
            break
        result = sampler.sample(bqm, num_reads=1, num_sweeps=sweeps, seed=(seed * 1_000_003 + k) % (2**31))
        k += 1
        now = time.time()
        if now > deadline:
            break
        pace = (now - start) / sweeps
        out.append((now - t0, score(result)))
        if (now - start) * 8 < deadline - now and sweeps < 1 << 20:
            sweeps *= 2
    return out


def run_sa(kind, n, terms, seconds, seed, processes):
    global _MODEL
    _MODEL = (kind, n, terms)
    t0 = time.time()
    deadline = t0 + seconds
    with mp.get_context("fork").Pool(processes) as pool:
        parts = pool.map(sa_worker, [(t0, deadline, seed * 1000 + p) for p in range(processes)])
    points = sorted(p for part in parts for p in part)
    trace, best = [], None
    for t, value in points:
        if best is None or value > best:
            best = value
            trace.append((t, value))
    return trace


def sa_server():
    """`--sa-server`: SA runs asked for on stdin, one JSON object a line ({"path", "time", "seed",
    "processes"}), each answered on stdout ({"trace"} or {"error"}). A slot's SA runs go through
    one such process, started under the slot's `taskset`, so that several run side by side (each
    forks its own pool) and dimod is imported and each graph read once per slot."""
    # Imported once here, not in every run's clock.
    importlib.import_module("dimod")
    importlib.import_module("dwave.samplers")

    read = {}
    for line in sys.stdin:
        ask = json.loads(line)
        try:
            path = ask["path"]
            if path not in read:
                kind = "max-cut" if path.endswith(GRAPH_EXTENSIONS) else "max-sat"
                n, terms, _ = (read_gset if kind == "max-cut" else read_cnf)(path)
                read = {path: (kind, n, terms)}
            answer = {"trace": run_sa(*read[path], ask["time"], ask["seed"], ask["processes"])}
        except Exception as e:  # an answer, so that the calling slot reports it and goes on
            answer = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(answer), flush=True)


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


def number(text):
    """A fitness as the trace writes it: an integer where it is one."""
    x = float(text)
    return int(x) if x.is_integer() else x


def run_pgomea(binary, instance, variant, seconds, seed, out, pin):
    trace_file = os.path.join(out, "traces", f"trace-{instance.label}-{variant}-{seed}.csv")
    on_cpu = on_the_cpu(variant)
    algo = [] if on_cpu else ["--algo", "parallel"]
    cmd = pin + [binary, "run", *instance.pgomea_where, *algo,
                 "--backend", "cpu" if on_cpu else "cuda", "--time-limit", str(seconds), "--seed", str(seed),
                 "--trace", trace_file, "--json", "--quiet"] + variant_options(variant)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed (exit {done.returncode}): {done.stderr.strip()}")
    result = json.loads(done.stdout)
    trace = []
    with open(trace_file) as f:
        next(f)
        for line in f:
            t, _, best = line.strip().split(",")
            trace.append((float(t), number(best)))
    return trace, result


def check_pgomea(binary, instances, methods):
    """Before any run: every pgomea method's options as the binary takes them (`run --explain` on
    the first instance), and a GPU where a method needs one, so that a typo or a missing GPU stops
    the call at once instead of failing each of its runs."""
    variants = [m for m in dict.fromkeys(methods) if m not in ("sa", "sb", "skip")]
    for m in variants:
        backend = ["--backend", "cpu" if on_the_cpu(m) else "cuda"]
        done = subprocess.run([binary, "run", *instances[0].pgomea_where, *backend, *variant_options(m), "--explain"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"--methods: {m}: pgomea refuses its options: {done.stderr.strip()}")
    if any(m == "sb" or not on_the_cpu(m) for m in variants) or "sb" in methods:
        done = subprocess.run([binary, "devices"], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"--methods: GPU methods need a CUDA device: {done.stderr.strip()}")


def best_at(trace, t):
    best = None
    for time_s, value in trace:
        if time_s <= t:
            best = value
    return best


def time_to(trace, target, limit):
    """The first time within `limit` at which the trace reaches `target`; inf if it does not."""
    for time_s, value in trace:
        if time_s > limit:
            break
        if value >= target:
            return time_s
    return math.inf


def parse_cpus(text):
    """A CPU list as taskset takes it (`0-15`, `0,2,4-7`), in order, each CPU once."""
    cpus = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()) or (high and int(high) < int(low)):
            raise SystemExit(f"--cpus: {part.strip()!r} is not a CPU number or range (e.g. 0-15 or 0,2,4-7)")
        cpus += range(int(low), int(high or low) + 1)
    return list(dict.fromkeys(cpus))


def siblings(cpu):
    try:
        return Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip()
    except OSError:
        return "?"


class Slot:
    """A set of CPUs that one run at a time has; its SA server, once it has run SA."""

    def __init__(self, cpus, pinned):
        self.cpus = cpus
        self.pin = ["taskset", "-c", ",".join(map(str, cpus))] if pinned else []
        self.server = None

    def sa(self, path, seconds, seed, processes):
        if self.server is None:
            self.server = subprocess.Popen(self.pin + [sys.executable, os.path.abspath(__file__), "--sa-server"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.server.stdin.write(json.dumps({"path": path, "time": seconds, "seed": seed, "processes": processes}) + "\n")
        self.server.stdin.flush()
        line = self.server.stdout.readline()
        if not line:
            raise RuntimeError(f"the SA process of CPUs {self.pin[-1] if self.pin else 'all'} ended (see its error above)")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"SA: {answer['error']}")
        return [tuple(p) for p in answer["trace"]]

    def close(self):
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait()


def plan_runs(instances, methods, seeds, sa_elsewhere):
    """The runs, in order (instance, seed, method): SA only on graphs and cnf, SB only on graphs;
    where SA takes no instance, --sa-elsewhere says what runs instead (not twice)."""
    runs = []
    for inst in instances:
        for seed in seeds:
            chosen = []
            for method in methods:
                if method == "sa" and inst.sa_path is None or method == "sb" and not inst.is_graph():
                    if method == "sa" and sa_elsewhere != "skip":
                        method = sa_elsewhere
                    else:
                        continue
                if method not in chosen:
                    chosen.append(method)
            runs += [(inst, seed, m) for m in chosen]
    return runs


def estimate_wall(runs, slots, seconds):
    """The wall time of the runs on the slots, each run taken by the first slot free (as they go)."""
    free = [0.0] * slots
    read = [None] * slots
    for inst, _, method in runs:
        k = min(range(slots), key=free.__getitem__)
        kind = method if method in OVERHEAD_S else "pgomea"
        cost = seconds + OVERHEAD_S[kind]
        if method == "sa" and read[k] != inst.label:
            cost += SA_READ_S_PER_EDGE * inst.edges + (SA_START_S if read[k] is None else 0)
            read[k] = inst.label
        free[k] += cost
    return max(free, default=0.0)


def print_tables(runs, at, order):
    """The tables of a call: best value at each time, time to target, and cpu's parity with the
    baselines; every cell the median over seeds, then each seed."""
    refs = {}
    for r in runs:
        inst = r["instance"]
        if r.get("best_known") is not None:
            refs[inst] = (r["best_known"], "")
        elif r["trace"]:
            seen = max(v for _, v in r["trace"])
            if inst not in refs or (refs[inst][1] == "*" and seen > refs[inst][0]):
                refs[inst] = (seen, "*")
    keys = sorted({(r["instance"], r["method"]) for r in runs}, key=lambda k: (order.index(k[0]) if k[0] in order else 0, k[1]))

    def of(inst, method):
        return [r for r in runs if r["instance"] == inst and r["method"] == method]

    def median_cell(vals, fmt):
        known = [v for v in vals if v is not None]
        med = statistics.median(known) if known and len(known) == len(vals) else None
        return med, f"{fmt(med) if med is not None else '-'}; " + ", ".join(fmt(v) if v is not None else "-" for v in vals)

    def value(v):
        # A median of two integers may end in .5; no value is shown rounded.
        return str(v) if not isinstance(v, float) else str(int(v)) if v.is_integer() else f"{v:.1f}"

    def table(title, columns, cells):
        """A table of a row per instance and method; `cells(runs, reference)` gives the row's cells
        after the first three, or None to leave the row out."""
        print(f"\n{title}\n")
        print("| instance | reference | method | " + " | ".join(columns) + " |")
        print("|---|---:|---|" + "---:|" * len(columns))
        for inst, method in keys:
            ref, mark = refs.get(inst, (None, ""))
            row = cells(of(inst, method), ref)
            if row is not None:
                print(f"| {inst} | {value(ref) + mark if ref is not None else '-'} | {method} | " + " | ".join(row) + " |")

    def best_cells(rs, ref):
        cells = []
        for t in at:
            med, cell = median_cell([r["best_at"][str(t)] for r in rs], value)
            pct = f" ({100 * med / ref:.2f} %)" if med is not None and ref and ref > 0 else ""
            cells.append(cell.replace(";", pct + ";", 1))
        return cells

    def time_cells(rs, ref):
        if ref is None or ref <= 0:
            return None
        cells = []
        for share in TARGETS:
            # The target a run must reach: the reference's share, rounded up for integer values.
            target = math.ceil(share * ref) if isinstance(ref, int) else share * ref
            times = [time_to(r["trace"], target, r["time_limit_s"]) for r in rs]
            med = censored_median(times)
            cells.append(f"{'-' if math.isinf(med) else f'{med:.2f}'}; "
                         + ", ".join("-" if math.isinf(t) else f"{t:.2f}" for t in times))
        return cells

    table("Best value at each time (median over seeds; each seed); the reference is the best known or stated "
          "optimum, * the best of this call.", [f"best at {t:g} s" for t in at], best_cells)
    table("Time to target: the first time (s) a run's best reaches each share of the reference (median over "
          "seeds, `-` where half or more did not within their time limit; each seed).",
          [f"{100 * s:g} %" for s in TARGETS], time_cells)

    baselines = [m for m in ("sa", "anneal") if any(r["method"] == m for r in runs)]
    if not baselines or not any(r["method"] == "cpu" for r in runs):
        return
    last = str(at[-1])
    print()
    print(f"Parity at {at[-1]:g} s: the CPU's defaults (`cpu`) against the baselines, medians over seeds; "
          "the gap is cpu's median over the best baseline's, minus 1.")
    print()
    print("| instance | cpu | " + " | ".join(baselines) + " | gap | |")
    print("|---|---:|" + "---:|" * len(baselines) + "---:|---|")
    for inst in dict.fromkeys(k[0] for k in keys):
        meds = {}
        for m in ["cpu"] + baselines:
            vals = [r["best_at"][last] for r in of(inst, m)]
            meds[m] = statistics.median(vals) if vals and None not in vals else None
        base = [meds[m] for m in baselines if meds[m] is not None]
        if meds["cpu"] is None and not base:
            continue
        if meds["cpu"] is None or not base:
            # A median of None: half or more of the seeds had no value by then.
            gap, verdict = "-", "ahead (no baseline value)" if meds["cpu"] is not None else "behind (no cpu value)"
        else:
            best = max(base)
            gap = f"{100 * (meds['cpu'] / best - 1):+.3f} %" if best > 0 else "-"
            verdict = "ahead" if meds["cpu"] > best else "level" if meds["cpu"] == best else "behind"
            missing = [m for m in baselines if meds[m] is None and of(inst, m)]
            verdict += f" ({', '.join(missing)}: no value)" if missing else ""
        print(f"| {inst} | {value(meds['cpu']) if meds['cpu'] is not None else '-'} | "
              + " | ".join(value(meds[m]) if meds[m] is not None else "-" for m in baselines) + f" | {gap} | {verdict} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sa-server", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--pgomea", help="the pgomea binary (needed unless --tables-from)")
    ap.add_argument("--data", default=str(default_instances_dir()),
                    help="instance data directory (gset/, best_known.csv) for G-set names (default: $PGOMEA_INSTANCES, else ./instances)")
    ap.add_argument("--instances", default="G22,G55,G81", help="comma-separated names, files, generated instances or presets (see above)")
    ap.add_argument("--instance-seed", type=int, default=1, help="the seed of the generated instances (default 1)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--time", type=float, default=60.0, help="seconds of every run (default 60)")
    ap.add_argument("--at", default="1,10,60", help="the times of the best-value table (default 1,10,60; those from --time on are read at --time)")
    ap.add_argument("--methods", default="sa,paper,default")
    ap.add_argument("--sa-elsewhere", default="anneal",
                    help="what runs instead of sa on instances that are not graphs: a method, or skip (default anneal)")
    ap.add_argument("--sa-processes", type=int, help="SA's worker processes (default: the CPUs of a run)")
    ap.add_argument("--sb-agents", type=int, default=1024)
    ap.add_argument("--cpus", help="the CPUs the runs may use, as taskset takes them (default: those this process may use)")
    ap.add_argument("--cpus-per-run", type=int, help="CPUs of each run; runs go side by side on disjoint sets (default: all of --cpus, one run at a time)")
    ap.add_argument("--max-wall", type=float, help="refuse a plan whose wall time is estimated above this many seconds")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and stop (the CPUs need not exist here)")
    ap.add_argument("--tables-from", help="print the tables of a stored OUT/peers.json and stop")
    ap.add_argument("--out", help="the output directory (needed unless --tables-from)")
    a = ap.parse_args()
    if a.sa_server:
        return sa_server()
    if a.tables_from:
        try:
            with open(a.tables_from) as f:
                stored = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise SystemExit(f"--tables-from: {a.tables_from}: {e}")
        print_tables(stored["runs"], stored["at"], stored.get("instances", []))
        return 0
    for option in ("pgomea", "out"):
        if getattr(a, option) is None:
            raise SystemExit(f"--{option} is needed (or --tables-from)")
    if a.time <= 0:
        raise SystemExit(f"--time: {a.time} is not a positive number of seconds")
    try:
        seeds = [int(s) for s in a.seeds.split(",")]
        at = [float(x) for x in a.at.split(",")]
    except ValueError as e:
        raise SystemExit(f"--seeds/--at: {e}")
    if not seeds or min(at) <= 0:
        raise SystemExit("--seeds/--at: no seed, or a time that is not positive")
    # Times past the limit are read at the limit instead.
    at = [t for t in at if t < a.time] + [a.time] if max(at) >= a.time else at
    methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    if a.sa_elsewhere in ("sa", "sb"):
        raise SystemExit(f"--sa-elsewhere: {a.sa_elsewhere} takes no more instances than sa: a pgomea method, or skip")
    for m in methods + ([a.sa_elsewhere] if a.sa_elsewhere != "skip" else []):
        if m not in ("sa", "sb"):
            try:
                variant_options(m)
            except ValueError as e:
                raise SystemExit(f"--methods: {e}")
    if not (a.dry_run or os.access(a.pgomea, os.X_OK)):
        raise SystemExit(f"--pgomea: {a.pgomea} is not an executable file")

    allowed = sorted(os.sched_getaffinity(0))
    cpus = parse_cpus(a.cpus) if a.cpus else allowed
    if not a.dry_run and not set(cpus) <= set(allowed):
        raise SystemExit(f"--cpus: {a.cpus} has CPUs this process may not use (it may use {len(allowed)}: "
                         f"{','.join(map(str, allowed))})")
    per_run = len(cpus) if a.cpus_per_run is None else a.cpus_per_run
    if not 1 <= per_run <= len(cpus):
        raise SystemExit(f"--cpus-per-run: {per_run} is not between 1 and the {len(cpus)} CPUs of --cpus")
    groups = [cpus[k:k + per_run] for k in range(0, len(cpus) - per_run + 1, per_run)]
    pinned = sorted(cpus) != allowed or len(groups) > 1
    if pinned and not a.dry_run and shutil.which("taskset") is None:
        raise SystemExit("--cpus/--cpus-per-run: pinning needs taskset (util-linux), which is not on PATH")
    gpu = [m for m in methods + [a.sa_elsewhere] if m == "sb" or (m not in ("sa", "skip") and not on_the_cpu(m))]
    if gpu and len(groups) > 1:
        raise SystemExit(f"--methods: {', '.join(gpu)} run on the GPU, one at a time: give --cpus-per-run "
                         f"{len(cpus)} (or leave it out)")
    if "sa" in methods and not a.dry_run and (importlib.util.find_spec("dimod") is None
                                              or importlib.util.find_spec("dwave") is None):
        raise SystemExit("--methods sa needs dimod and dwave-samplers (pip install dimod dwave-samplers)")
    processes = a.sa_processes or per_run
    instances = parse_instances(a.instances, a.data, a.out, a.instance_seed)
    runs_planned = plan_runs(instances, methods, seeds, a.sa_elsewhere)
    wall = estimate_wall(runs_planned, len(groups), a.time)

    tee_stdout(None if a.dry_run else Path(a.out) / "report.md")
    print(f"machine: {machine_line()}; commit {git_commit()}")
    print(f"command: {shlex.join(sys.argv)}")
    used = " | ".join(",".join(map(str, g)) for g in groups)
    shared = sorted({siblings(c) for g in groups for c in g if "," in siblings(c) or "-" in siblings(c)})
    used += f" (threads sharing a core: {'; '.join(shared)})" if shared else ""
    instead = [i.label for i in instances if "sa" in methods and i.sa_path is None]
    instead = f"; {a.sa_elsewhere} instead of sa on {', '.join(instead)}" if instead and a.sa_elsewhere != "skip" else ""
    print(f"plan: {len(runs_planned)} runs ({len(instances)} instances x {len(seeds)} seeds x "
          f"{', '.join(methods)}{instead}) of {a.time:g} s, {len(groups)} at a time "
          f"on {per_run} CPU{'s' if per_run > 1 else ''} each{' (pinned)' if pinned else ''}: {used}; SA on "
          f"{processes} processes; about {wall:.0f} s of wall time")
    if a.max_wall is not None and wall > a.max_wall:
        raise SystemExit(f"--max-wall: the plan takes about {wall:.0f} s, more than {a.max_wall:g} s: "
                         "fewer instances, seeds or methods, or more slots")
    if a.dry_run:
        return 0

    started = time.time()
    os.makedirs(os.path.join(a.out, "traces"), exist_ok=True)
    for inst in instances:
        if inst.generate:
            generate(a.pgomea, inst)
    print(f"generated {sum(1 for i in instances if i.generate)} instances in {time.time() - started:.1f} s", flush=True)
    check_pgomea(a.pgomea, instances, methods + [a.sa_elsewhere])

    slots = queue.Queue()
    all_slots = [Slot(g, pinned) for g in groups]
    for s in all_slots:
        slots.put(s)
    runs, failures, lock = [], [], threading.Lock()
    order = [i.label for i in instances]

    def one(inst, seed, method):
        slot = slots.get()
        began = time.time()
        try:
            extra = {}
            if method == "sa":
                trace = slot.sa(inst.sa_path, a.time, seed, processes)
            elif method == "sb":
                n, edges, _ = read_gset(inst.sa_path)
                trace = run_sb(n, edges, a.time, seed, a.sb_agents)
            else:
                trace, result = run_pgomea(a.pgomea, inst, method, a.time, seed, a.out, slot.pin)
                extra = {k: result.get(k) for k in ("algorithm", "backend", "generations", "populations", "evaluations", "gom_steps")}
        except Exception as e:  # reported, and the other runs go on
            with lock:
                failures.append(f"{inst.label} {method} seed {seed}: {e}")
                print(f"{inst.label} {method} seed {seed}: FAILED: {e}", flush=True)
            return
        finally:
            slots.put(slot)
        run = {"instance": inst.label, "best_known": inst.reference, "method": method, "options": variant_options(method)
               if method not in ("sa", "sb") else [], "seed": seed, "time_limit_s": a.time,
               "cpus": slot.cpus, "best_at": {str(t): best_at(trace, t) for t in at}, "trace": trace, **extra}
        with lock:
            runs.append(run)
            print(f"{inst.label} {method} seed {seed} (CPUs {','.join(map(str, slot.cpus))}): "
                  + ", ".join(f"{t:g}s {run['best_at'][str(t)]}" for t in at)
                  + f" ({time.time() - began:.1f} s wall)", flush=True)
            with open(os.path.join(a.out, "peers.json"), "w") as f:
                json.dump({"runs": runs, "at": at, "instances": order, "sa_processes": processes,
                           "sb_agents": a.sb_agents, "cpus_per_run": per_run, "variants": VARIANTS,
                           "aliases": ALIASES}, f)

    try:
        with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
            for future in [pool.submit(one, *r) for r in runs_planned]:
                future.result()
    finally:
        for s in all_slots:
            s.close()
    print(f"done in {time.time() - started:.0f} s of wall time (planned about {wall:.0f} s)")
    print_tables(runs, at, order)
    if failures:
        print(f"\n{len(failures)} runs failed:\n" + "\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
