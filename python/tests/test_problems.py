"""Problems from arrays, graphs, clauses, tables and files; solve's options, results and errors."""

import itertools
import threading

import numpy as np
import pytest

import pgomea
from pgomea import Error


def brute_force(problem):
    n = problem.variables
    assert n <= 16
    return max(problem.evaluate(np.array(x)) for x in itertools.product((0, 1), repeat=n))


# ---------------------------------------------------------------------------------------------
# Files of every kind


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


FILES = {
    # A 4-cycle with weights 1..4: every edge cut by 0101.
    "cycle.txt": ("c optimum 10\n4 4\n1 2 1\n2 3 2\n3 4 3\n4 1 4\n", "max-cut", 4, 10),
    # Two traps of 3 (optimum stated), the first variable the most significant bit.
    "traps.nk": ("c two traps\np trap 6 2\no 6\nf 3 1 2 3 2 1 1 0 1 0 0 3\nf 3 4 5 6 2 1 1 0 1 0 0 3\n",
                 "trap", 6, 6),
    "adjacent.mk": ("p NK 4 2\nm 0 1\n1 5 2 0\nm 1 2\n3 0 4 1\nm 2 3\n0 2 2 6\n", "nk", 4, None),
    "sat.cnf": ("c x1 or x2, not x1, not x2 or x3\np cnf 3 3\n1 2 0\n-1 0\n-2 3 0\n", "max-sat", 3, None),
    "classic.wcnf": ("p wcnf 2 3 10\n10 1 2 0\n3 -1 0\n4 -2 0\n", "max-sat", 2, None),
    "modern.wcnf": ("h 1 2 0\n3 -1 0\n4 -2 0\n", "max-sat", 2, None),
    "model.qubo": ("c a QUBO\np qubo 0 3 3 2\n0 0 -1\n1 1 -1\n2 2 2\n0 1 3\n1 2 -2.5\n", "qubo", 3, None),
    "model.ising": ("p ising 3\n0 1 -1\n1 2 1\n0 0 0.5\n", "ising", 3, None),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_load_reads_every_file_kind_and_solves_it_to_the_brute_force_optimum(tmp_path, name):
    text, kind, variables, best_known = FILES[name]
    problem = pgomea.load(write(tmp_path, name, text))
    assert (problem.problem_type, problem.variables) == (kind, variables)
    if best_known is not None:
        assert problem.best_known == best_known
    optimum = brute_force(problem)
    result = pgomea.solve(problem, target=optimum, max_evaluations=1e5)
    assert result.best_fitness == optimum and result.reached_target
    assert problem.evaluate(result.solution) == result.best_fitness
    assert result.solution.dtype == np.uint8 and result.solution.shape == (variables,)
    if kind in ("qubo", "ising"):
        # The energy of the best solution, exact, and the least of all.
        energies = [problem.energy(np.array(x)) for x in itertools.product((0, 1), repeat=variables)]
        assert result.energy == min(energies) == problem.energy(result.solution) == -result.best_fitness
    else:
        assert result.energy is None and isinstance(result.best_fitness, int)
        assert result.grid == 1 and result.grid_fitness == result.best_fitness


def test_an_adjacent_nk_file_gets_its_exact_optimum(tmp_path):
    problem = pgomea.load(write(tmp_path, "adjacent.mk", FILES["adjacent.mk"][0]))
    assert problem.best_known == brute_force(problem)
    assert pgomea.solve(problem, target="best-known").stop_reason == "target reached"


def test_a_format_can_be_forced_and_malformed_files_name_file_and_line(tmp_path):
    path = write(tmp_path, "graph.data", FILES["cycle.txt"][0])
    assert pgomea.load(path, format="max-cut").problem_type == "max-cut"
    bad = write(tmp_path, "bad.txt", "3 2\n1 2 1\n2 2 5\n")
    with pytest.raises(Error, match=r"bad\.txt:3: .*self-loop"):
        pgomea.load(bad)
    with pytest.raises(ValueError, match=r"bad\.cnf:2: .*literal"):
        pgomea.load(write(tmp_path, "bad.cnf", "p cnf 2 1\n1 x 0\n"))
    with pytest.raises(Error, match="format"):
        pgomea.load(path, format="graph")
    with pytest.raises(FileNotFoundError):
        pgomea.load(tmp_path / "missing.txt")


# ---------------------------------------------------------------------------------------------
# Problems from arrays


def test_max_cut_from_arrays_and_bad_arrays_raise_naming_the_problem():
    p = pgomea.max_cut(4, np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), [1, 2, 3, 4])
    assert brute_force(p) == 10 and p.grid == 1 and p.exact
    assert pgomea.max_cut(3, [(0, 1), (1, 2)]).evaluate([0, 1, 0]) == 2  # weight 1 by default
    bad = [
        (lambda: pgomea.max_cut(3, [0, 1, 2]), "m x 2"),
        (lambda: pgomea.max_cut(3, [[0, 1, 2]]), "m x 2"),
        (lambda: pgomea.max_cut(3, [[0, -1]]), r"edges\[0, 1\] = -1: vertices are in 0..2"),
        (lambda: pgomea.max_cut(3, [[0, 3]]), r"edges\[0, 1\] = 3"),
        (lambda: pgomea.max_cut(3, [[0, 1], [2, 2]]), r"edges\[1\] = \(2, 2\) is a self-loop"),
        (lambda: pgomea.max_cut(3, [[0, 1], [1, 2]], [1.0, float("nan")]), "edge 1: NaN"),
        (lambda: pgomea.max_cut(3, [[0, 1], [1, 2]], [1]), "2 weights"),
        (lambda: pgomea.max_cut(3, [[0.5, 1]]), "integers"),
        (lambda: pgomea.max_cut(-1, []), "n = -1"),
        (lambda: pgomea.max_cut(3, [[0, 1], [1, 2]], [2**62, 2**62]), "64-bit"),
        (lambda: pgomea.max_cut(2, [[0, 1]], ["a"]), "numbers"),
    ]
    for make, says in bad:
        with pytest.raises(Error, match=says):
            make()


def test_real_weights_are_taken_as_given_and_results_are_in_their_units():
    p = pgomea.max_cut(3, [[0, 1], [1, 2], [0, 2]], [0.5, 1.25, -0.75])
    assert str(p.grid) == "0.01" and p.rounding_bound == 0 and not p.exact
    r = pgomea.solve(p, target=brute_force(p), max_evaluations=1e4)
    assert r.best_fitness == 1.75 and isinstance(r.best_fitness, float)
    assert (r.grid_fitness, str(r.grid), r.rounding_bound) == (175, "0.01", 0.0)
    assert "best_fitness=1.75 (grid 0.01" in repr(r)
    # A resolution is a grid to round to: 0.3 is 0.5 on a grid of 0.5, and the cut is 0.3.
    q = pgomea.max_cut(2, [[0, 1]], [0.3], resolution=0.5)
    assert q.evaluate_on_grid([0, 1]) == 1 and q.evaluate([0, 1]) == 0.3 and q.rounding_bound == pytest.approx(0.2)
    # The example: 0.1 + 0.2 beside 1.0, exact on a grid of 10^-17, and beside 1000,
    # where that grid leaves 64 bits: the finest that fits, rounded.
    for weights, rounded in (([0.1 + 0.2, 1.0], False), ([0.1 + 0.2, 1000.0], True)):
        p = pgomea.max_cut(3, [[0, 1], [1, 2]], weights)
        r = pgomea.solve(p, max_evaluations=1e3)
        assert r.best_fitness == sum(weights) and (0 < p.rounding_bound <= float(p.grid)) == rounded
        assert float(p.grid) < 1e-15 * sum(weights) and r.trace.best_fitness.dtype == np.float64
        assert r.trace.best_fitness[-1] == pytest.approx(r.best_fitness, abs=p.rounding_bound + 1e-12)
    with pytest.raises(Error, match="positive"):
        pgomea.max_cut(2, [[0, 1]], [1.0], resolution=-1)
    with pytest.raises(Error, match="give a coarser resolution, at least"):
        pgomea.max_cut(3, [[0, 1], [1, 2]], [1e6, 1e6], resolution=1e-15)


def test_a_networkx_graph_keeps_its_node_labels():
    nx = pytest.importorskip("networkx")
    g = nx.Graph()
    g.add_edge("a", "b", weight=3)
    g.add_edge("b", ("c", 1))  # weight 1
    g.add_edge(("c", 1), "a", weight=2)
    p = pgomea.from_networkx(g)
    assert p.labels == ["a", "b", ("c", 1)]
    r = pgomea.solve(p, target=5, max_evaluations=1e4)
    assert r.best_fitness == 5 and set(r.assignment) == {"a", "b", ("c", 1)}
    assert r.assignment["a"] != r.assignment["b"] and r.assignment["a"] != r.assignment[("c", 1)]
    g.add_edge("a", "a")
    with pytest.raises(Error, match="self-loop on node 'a'"):
        pgomea.from_networkx(g)
    with pytest.raises(Error, match="directed"):
        pgomea.from_networkx(nx.DiGraph([(0, 1)]))


def test_max_sat_from_clause_lists_with_weights_and_hard_clauses():
    clauses = [[1, -2], [2], [-1], [2, 3]]
    p = pgomea.max_sat(clauses, weights=[3, 4, 5, 1], hard=[2])
    # The hard clause (not x1) weighs 1 + 3 + 4 + 1 = 9.
    assert p.evaluate([0, 1, 0]) == 4 + 9 + 1
    assert p.evaluate([1, 1, 1]) == 3 + 4 + 1
    r = pgomea.solve(p, target=brute_force(p), max_evaluations=1e4)
    assert r.best_fitness == 14 and r.solution[0] == 0
    assert pgomea.max_sat(clauses, hard=np.array([False, False, True, False])).evaluate([0, 1, 0]) == 1 + 4 + 1
    assert pgomea.max_sat([[1], [-4]]).variables == 4
    for args, kwargs, says in [
        (([[1, 0]],), {}, "clause 0: literal 0"),
        (([[1], [3]],), {"variables": 2}, "clause 1: literal 3"),
        (([[1]],), {"weights": [0]}, "weight 0"),
        (([[1]],), {"weights": [1.5]}, "integers"),
        (([[1]],), {"hard": [1]}, r"hard\[0\] = 1"),
    ]:
        with pytest.raises(Error, match=says):
            pgomea.max_sat(*args, **kwargs)


def test_tables_of_integer_and_real_values():
    # f(x0, x1) with x0 the most significant bit, g(x2).
    p = pgomea.tables(3, [[0, 1], [2]], [[0, 1, 2, 7], [5, 0]], optimum=12)
    assert p.best_known == 12 and p.evaluate([1, 1, 0]) == 12 and p.evaluate([0, 1, 1]) == 1
    q = pgomea.tables(2, [[0], [1]], [[0.5, 0.0], [0.0, 0.25]], optimum=0.75)
    assert str(q.grid) == "0.01" and q.best_known == 0.75
    assert pgomea.solve(q, target="best-known").best_fitness == 0.75
    # A target in the problem's units.
    assert pgomea.solve(q, target=0.75).reached_target
    with pytest.raises(Error, match=r"subfunction 1 reads 2 variables: its table has 2\^2 = 4 values, not 3"):
        pgomea.tables(3, [[0], [1, 2]], [[0, 1], [0, 1, 2]])
    with pytest.raises(Error, match="subfunction 0 names variable 1 twice"):
        pgomea.tables(3, [[1, 1]], [[0, 1, 2, 3]])
    with pytest.raises(Error, match=r"variables\[1\] = 3"):
        pgomea.tables(3, [[0, 3]], [[0, 1, 2, 3]])


# ---------------------------------------------------------------------------------------------
# solve


def random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < m:
        u, v = rng.integers(0, n, 2)
        if u != v:
            pairs.add((min(u, v), max(u, v)))
    return pgomea.max_cut(n, np.array(sorted(pairs)), rng.integers(1, 10, m), name=f"random-{n}")


def test_solve_answers_are_exact_and_a_seed_repeats_a_run():
    p = random_graph(200, 800, 1)
    for algorithm in ("serial", "parallel"):
        a = pgomea.solve(p, algorithm=algorithm, backend=None if algorithm == "serial" else "cpu", seed=7,
                         max_evaluations=3000)
        b = pgomea.solve(p, algorithm=algorithm, backend=None if algorithm == "serial" else "cpu", seed=7,
                         max_evaluations=3000)
        assert p.evaluate(a.solution) == a.best_fitness
        assert a.best_fitness == b.best_fitness and np.array_equal(a.solution, b.solution)
        assert a.evaluations == b.evaluations and np.array_equal(a.trace.best_fitness, b.trace.best_fitness)
        assert a.config["seed"] == 7 and a.config["algorithm"] == algorithm
        assert a.stop_reason == "evaluation limit" and a.evaluations >= 3000
        # The trace: times and evaluations grow, the fitness improves, the last is the best.
        assert np.all(np.diff(a.trace.best_fitness) > 0) and a.trace.best_fitness[-1] == a.best_fitness
        assert np.all(np.diff(a.trace.evaluations) >= 0) and np.all(np.diff(a.trace.time_s) >= 0)
    c = pgomea.solve(p, seed=8, max_evaluations=3000)
    assert c.config["seed"] == 8


def test_defaults_are_the_librarys_and_the_backend_says_where_it_ran():
    p = random_graph(30, 60, 2)
    r = pgomea.solve(p, algorithm="parallel", target=10**9, time_limit=0.3)
    assert r.config["forced_improvement"] is False and r.config["local_search"] == "initial"
    assert r.stop_reason == "time limit" and 0.3 <= r.time_s < 5 and r.setup_s <= r.time_s
    assert 0 <= r.before_setup_s and r.before_setup_s + r.setup_s <= r.time_s
    chosen = pgomea.backend()
    assert chosen.name in ("cpu", "cuda") and chosen.reason
    assert r.backend.startswith(chosen.name)
    if chosen.name == "cpu":
        assert pgomea.devices() == []
        assert any("backend: CPU" in note for note in r.notes), r.notes
    s = pgomea.solve(p, max_evaluations=100)
    assert s.config["time_limit"] is None and s.config["algorithm"] == "serial" and s.backend == "cpu (serial)"
    t = pgomea.solve(p, target=1.0)
    assert t.config["time_limit"] is None and t.stop_reason == "target reached" and t.config["target"] == 1


def test_the_keywords_of_solve_and_their_docstring_are_the_librarys_table_of_run_options():
    import inspect
    table = pgomea._pgomea.run_options()
    names = [name for name, *_ in table]
    assert "time_limit" in names and "anneal_sweeps" in names and len(names) == len(set(names))
    parameters = list(inspect.signature(pgomea.solve).parameters)
    assert parameters == ["problem"] + names + ["fi", "on_improvement"]
    doc = " ".join(pgomea.solve.__doc__.split())
    for name, kind, default, help_line, details, choices in table:
        assert f"{name} ({kind}): {help_line}" in doc, name
        assert all(repr(c) in doc for c in choices), name
        # Other options are named by their keywords, never by the command line's flags.
        assert "--" not in details, (name, details)


def test_bad_options_raise_naming_the_option():
    p = random_graph(10, 20, 3)
    for kwargs, says in [
        ({"time_limit": -1}, "time_limit"),
        ({"time_limit": float("nan")}, "time_limit nan"),
        ({"max_evaluations": 0}, "max_evaluations"),
        ({"algorithm": "genetic"}, 'algorithm "genetic": unknown variant `genetic`'),
        ({"backend": "gpu"}, 'backend "gpu": unknown variant'),
        ({"linkage": "tree"}, "linkage"),
        ({"seed": -1}, "seed"),
        ({"threads": 0}, "threads"),
        ({"algorithm": "serial", "backend": "cuda"}, "backend cuda: serial GOMEA"),
        ({"target": "best-known"}, "target best-known"),
        ({"n_base": 1}, "n_base"),
        ({"cuda": {"generation_block": 33}}, "generation_block"),
        ({"cuda": {"blocks": 1}}, "cuda .*unknown field `blocks`"),
        ({"anneal_only": True, "local_search": "off"}, "anneal_only"),
        ({"anneal_growth": 0}, "anneal_growth"),
        ({"anneal_growth": 2, "local_search": "off"}, "anneal_growth"),
        ({"anneal_share": 1.5}, "anneal_share"),
        ({"elitist_restarts": True, "local_search": "off"}, "elitist_restarts needs the local search"),
    ]:
        with pytest.raises(Error, match=says):
            pgomea.solve(p, **kwargs)
    with pytest.raises(TypeError):
        pgomea.solve(p, time_limt=1)
    with pytest.raises(TypeError):
        pgomea.solve(p, fi=True, forced_improvement=False)
    with pytest.raises(TypeError):
        pgomea.solve("graph.txt")
    assert pgomea.solve(p, fi=False, max_evaluations=10).config["forced_improvement"] is False
    # Max-Cut doubles its annealing with every population by default, on the CPU as on the GPU; an
    # explicit growth is kept.
    assert pgomea.solve(p, backend="cpu", algorithm="parallel", max_evaluations=10).config["anneal_growth"] == 2
    assert pgomea.solve(p, anneal_growth=1, max_evaluations=10).config["anneal_growth"] == 1
    # A new population's annealing takes at most 3/4 of the time left by default.
    assert pgomea.solve(p, max_evaluations=10).config["anneal_share"] == 0.75
    assert pgomea.solve(p, anneal_share=0, max_evaluations=10).config["anneal_share"] == 0
    # Partition mixing into the elitist is on by default, off in the control unless asked for.
    config = pgomea.solve(p, max_evaluations=10).config
    assert config["partition_mixing"] is True and config["partition_mixing_chosen"].startswith("partition mixing")
    config = pgomea.solve(p, partition_mixing=False, max_evaluations=10).config
    assert config["partition_mixing"] is False and "partition_mixing_chosen" not in config
    # The result counts the mixes and their host time.
    g = random_graph(300, 1200, 4)
    mixed = pgomea.solve(g, anneal_sweeps=10, max_evaluations=3000).outcome
    assert mixed["partition_mixes"] > 0 and mixed["partition_mixing_s"] > 0
    plain = pgomea.solve(g, anneal_sweeps=10, partition_mixing=False, max_evaluations=3000).outcome
    assert (plain["partition_mixes"], plain["partition_mixing_s"]) == (0, 0)
    control = pgomea.solve(p, anneal_only=True, local_search="initial", max_evaluations=10)
    assert control.config["partition_mixing"] is False
    # Restarts from the elitist: off by default, on when asked for.
    assert config["elitist_restarts"] is False
    assert pgomea.solve(p, elitist_restarts=True, max_evaluations=10).config["elitist_restarts"] is True


def test_on_improvement_hears_every_improvement_and_its_exception_stops_the_run():
    p = random_graph(300, 1200, 4)
    heard = []
    r = pgomea.solve(p, max_evaluations=2000, on_improvement=lambda t, e, f: heard.append((t, e, f)))
    assert [h[2] for h in heard] == r.trace.best_fitness.tolist()
    assert [h[1] for h in heard] == r.trace.evaluations.tolist()

    def fail(t, e, f):
        if f > heard[0][2]:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough") as caught:
        pgomea.solve(p, time_limit=30, on_improvement=fail)
    result = caught.value.result
    assert result.stop_reason == "interrupted" and result.time_s < 10
    assert p.evaluate(result.solution) == result.best_fitness


def test_the_gil_is_released_while_solving():
    counted = [0]
    running = threading.Event()

    def count():
        running.set()
        while running.is_set():
            counted[0] += 1

    t = threading.Thread(target=count)
    t.start()
    running.wait()
    start = counted[0]
    pgomea.solve(random_graph(100, 300, 5), target=10**9, time_limit=1.0)
    progress = counted[0] - start
    running.clear()
    t.join()
    assert progress > 10000, progress


def test_the_annealing_is_chosen_from_the_instance_and_the_config_says_why(tmp_path):
    for name, sweeps, why in [("traps.nk", 0, "no annealing: 2 of 2 tables probed deceptive"),
                              ("sat.cnf", 0, "no annealing: clauses"),
                              ("adjacent.mk", 3000, "annealed: "),
                              ("cycle.txt", 3000, "annealed: pairwise")]:
        problem = pgomea.load(write(tmp_path, name, FILES[name][0]))
        config = pgomea.solve(problem, backend="cpu", algorithm="parallel", threads=8, max_evaluations=10).config
        assert config["anneal_sweeps"] == sweeps and config["annealing_chosen"].startswith(why), (name, config)
    # Fewer than 8 CPU threads anneal longer, and say why.
    config = pgomea.solve(problem, backend="cpu", algorithm="parallel", threads=2, max_evaluations=10).config
    assert config["anneal_sweeps"] == 10000 and "10000 sweeps on 2 CPU threads" in config["annealing_chosen"]
    # Asked for, the sweeps are kept and there is no reason to give.
    config = pgomea.solve(problem, anneal_sweeps=5, max_evaluations=10).config
    assert config["anneal_sweeps"] == 5 and "annealing_chosen" not in config
    # A 2D spin glass (a 12 x 12 torus, distinct couplings of both signs) gets the descent alone;
    # with +-1 couplings, or on a random graph with the same couplings, it is annealed.
    side = 12
    cell = lambda x, y: (x % side) * side + y % side
    lattice = np.array([(cell(x, y), cell(x + dx, y + dy)) for x in range(side) for y in range(side)
                        for dx, dy in [(1, 0), (0, 1)]])
    rng = np.random.default_rng(3)
    distinct = rng.permutation(np.arange(1, len(lattice) + 1)) * rng.choice([-1, 1], len(lattice))
    pairs = {(min(u, v), max(u, v)) for u, v in rng.integers(0, side * side, (4 * len(lattice), 2)) if u != v}
    scattered = np.array(sorted(pairs))[rng.permutation(len(pairs))[:len(lattice)]]
    for edges, weights, sweeps, why in [
            (lattice, distinct, 0, "no annealing: a 2D spin glass (2.0 squares per edge, "),
            (lattice, rng.choice([-1, 1], len(lattice)), 3000, "annealed: pairwise"),
            (scattered, distinct, 3000, "annealed: pairwise")]:
        problem = pgomea.max_cut(side * side, edges, weights)
        config = pgomea.solve(problem, backend="cpu", algorithm="parallel", threads=8, max_evaluations=10).config
        assert config["anneal_sweeps"] == sweeps and config["annealing_chosen"].startswith(why), config


# ---------------------------------------------------------------------------------------------
# Small things a user runs into


def test_a_negative_seed_is_refused_by_name():
    p = pgomea.max_cut(2, [[0, 1]])
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(Error, match=r"seed .*: expected an integer from 0 to 2\^64 - 1"):
            pgomea.solve(p, seed=seed, max_evaluations=10)
    assert pgomea.solve(p, seed=2**64 - 1, max_evaluations=10).config["seed"] == 2**64 - 1


def test_the_package_namespace_shows_only_its_own_names():
    names = {n for n in dir(pgomea) if not n.startswith("_")}
    assert not names & {"List", "NamedTuple", "annotations", "typing", "Optional"}
    assert names >= set(pgomea.__all__)


def test_load_finds_the_best_known_value_of_a_file_in_the_data_directory(tmp_path, monkeypatch):
    # A data directory as the command line reads it: gset/NAME.txt and best_known.csv.
    (tmp_path / "gset").mkdir()
    graph = write(tmp_path / "gset", "G1.txt", "4 4\n1 2 1\n2 3 2\n3 4 3\n4 1 4\n")
    write(tmp_path, "best_known.csv", "set,instance,vertices,edges,best_known,is_optimal,source\n"
                                      "C,G1,4,4,10,true,test\n")
    monkeypatch.delenv("PGOMEA_INSTANCES", raising=False)
    monkeypatch.chdir(tmp_path / "gset")
    # Found two levels above the file, through $PGOMEA_INSTANCES, or given.
    assert pgomea.load(graph).best_known == 10
    assert pgomea.load(graph, instances_dir=tmp_path).best_known == 10
    elsewhere = write(tmp_path, "copy.txt", graph.read_text())
    assert pgomea.load(elsewhere).best_known is None
    monkeypatch.setenv("PGOMEA_INSTANCES", str(tmp_path))
    r = pgomea.solve(pgomea.load(graph), target="best-known", max_evaluations=1e4)
    assert r.reached_target and r.best_fitness == 10
    with pytest.raises(Error, match="no best_known.csv"):
        pgomea.load(graph, instances_dir=tmp_path / "gset")


def test_improvements_targets_and_traces_are_in_the_problems_units():
    p = pgomea.tables(3, [[0], [1], [2]], [[0.0, 0.25], [0.0, 0.5], [1.5, 0.0]])
    heard = []
    r = pgomea.solve(p, target=2.25, max_evaluations=1e4, seed=3, on_improvement=lambda t, e, f: heard.append(f))
    assert r.reached_target and r.best_fitness == 2.25 and r.grid_fitness == 225
    assert heard == r.trace.best_fitness.tolist() and all(isinstance(f, float) for f in heard)
    # A model's fitness is minus its energy, and a target is one too.
    m = pgomea.quadratic_model("SPIN", 2, [0, 1], [0.5, -0.25], [0], [1], [-1.0])
    r = pgomea.solve(m, target=1.25, max_evaluations=1e4)
    assert r.reached_target and r.energy == -1.25 and r.best_fitness == 1.25
    assert m.evaluate(r.solution) == 1.25 and m.energy(r.solution) == -1.25
