"""PGomeaSampler: dimod's conformance checks, and brute-force optima of random small models."""

import io
import itertools
import time
import unittest

import numpy as np
import pytest

dimod = pytest.importorskip("dimod")

import pgomea  # noqa: E402
from pgomea.dimod import PGomeaSampler  # noqa: E402

# Small models are solved long before this budget ends.
BUDGET = {"max_evaluations": 20000}


def test_the_sampler_has_dimods_api():
    sampler = PGomeaSampler(**BUDGET)
    dimod.testing.assert_sampler_api(sampler)
    assert {"num_reads", "resolution", "time_limit", "max_evaluations", "seed", "algorithm", "backend"} \
        <= set(sampler.parameters)
    assert sampler.properties["auto_backend"] in ("cpu", "cuda")
    with pytest.raises(TypeError):
        PGomeaSampler(time_limt=1)


@dimod.testing.load_sampler_bqm_tests(lambda: PGomeaSampler(**BUDGET))
class TestSamplerConformance(unittest.TestCase):
    """dimod's own tests: empty, one-variable and path models of every BQM class, SPIN and
    BINARY, through sample, sample_ising and sample_qubo."""


def random_model(n, vartype, floats, rng):
    """A random BQM of n variables with fields (about half the pairs coupled)."""
    if floats:
        # Two decimals: exact on a grid of 0.01.
        draw = lambda: float(np.round(rng.uniform(-2, 2), 2))  # noqa: E731
    else:
        draw = lambda: int(rng.integers(-5, 6))  # noqa: E731
    linear = {v: draw() for v in range(n)}
    quadratic = {(u, v): draw() for u, v in itertools.combinations(range(n), 2) if rng.random() < 0.5}
    return dimod.BinaryQuadraticModel(linear, quadratic, draw(), vartype)


@pytest.mark.parametrize("vartype", ["SPIN", "BINARY"])
@pytest.mark.parametrize("floats", [False, True], ids=["integer", "float"])
def test_random_small_models_reach_the_brute_force_minimum(vartype, floats):
    rng = np.random.default_rng(17 if floats else 3)
    sampler = PGomeaSampler(**BUDGET)
    for n in (1, 2, 5, 9, 14):
        bqm = random_model(n, vartype, floats, rng)
        minimum = dimod.ExactSolver().sample(bqm).first.energy
        for algorithm in ("serial", "parallel"):
            sampleset = sampler.sample(bqm, algorithm=algorithm, backend=None if algorithm == "serial" else "cpu")
            best = sampleset.first
            # The reported energy is dimod's own, of the sample, and the brute-force minimum.
            assert best.energy == pytest.approx(bqm.energy(best.sample), abs=1e-9)
            assert best.energy == pytest.approx(minimum, abs=1e-9), (n, algorithm)
            assert set(best.sample.values()) <= ({-1, 1} if vartype == "SPIN" else {0, 1})
            # pgomea's exact energy (without the offset, which the reduction leaves to dimod) agrees.
            problem = pgomea.quadratic_model(vartype, n, np.arange(n), [bqm.linear[v] for v in range(n)],
                                             [u for u, _ in bqm.quadratic], [v for _, v in bqm.quadratic],
                                             list(bqm.quadratic.values()))
            x = np.array([best.sample[v] for v in range(n)])
            genes = (x + 1) // 2 if vartype == "SPIN" else x
            assert float(problem.energy(genes)) + bqm.offset == pytest.approx(best.energy, abs=1e-9)


def test_sample_ising_and_sample_qubo_with_labels_and_a_resolution():
    sampler = PGomeaSampler(**BUDGET)
    h = {"a": 0.5, "b": -1.0}
    J = {("a", "b"): -1.5, ("b", ("c", 2)): 2.0}
    sampleset = sampler.sample_ising(h, J, seed=5)
    assert len(sampleset) == 1 and set(sampleset.variables) == {"a", "b", ("c", 2)}
    info = sampleset.info
    assert info["seed"] == 5 and 0 <= info["before_setup_s"] and info["before_setup_s"] + info["setup_s"] <= info["time_s"]
    assert (info["grid"], info["rounding_bound"]) == ("0.1", 0.0)  # the grid of the biases' decimals
    exact = dimod.ExactSolver().sample_ising(h, J).first.energy
    assert sampleset.first.energy == pytest.approx(exact)
    Q = {(0, 0): -1, (1, 1): -1, (0, 1): 3, (1, 2): -2, (2, 2): 1}
    assert sampler.sample_qubo(Q).first.energy == dimod.ExactSolver().sample_qubo(Q).first.energy
    # A given grid is rounded to; the energies stay dimod's, of the model as given.
    assert sampler.sample_ising(h, J, resolution=0.25).first.energy == pytest.approx(exact)
    coarse = sampler.sample_ising(h, J, resolution=0.75)
    # 0.5 -> 0.75, -1.0 -> -0.75, -1.5 stays, 2.0 -> 2.25: 0.25 three times.
    assert coarse.info["rounding_bound"] == pytest.approx(0.75)
    assert coarse.first.energy == pytest.approx(dimod.BQM.from_ising(h, J).energy(coarse.first.sample))
    assert coarse.first.energy <= exact + 2 * coarse.info["rounding_bound"]
    with pytest.raises(ValueError, match="num_reads"):
        sampler.sample_ising(h, J, num_reads=0)


def test_float_models_of_dimods_generators_are_taken_as_they_are():
    """gnp and uniform models have float biases of 16-17 digits: no grid of their own decimals
    fits 64 bits, so the finest that does is taken; a random regular Ising model with Gaussian
    couplings likewise. The energies are dimod's, and the rounding bound is tiny."""
    import networkx as nx

    models = [dimod.generators.gnp_random_bqm(60, 0.2, "SPIN", random_state=1),
              dimod.generators.uniform(nx.complete_graph(40), "BINARY", low=-1, high=1, seed=2)]
    rng = np.random.default_rng(3)
    regular = nx.random_regular_graph(3, 50, seed=4)
    models.append(dimod.BQM.from_ising({}, {e: rng.normal() for e in regular.edges}))
    sampler = PGomeaSampler()
    for bqm in models:
        sampleset = sampler.sample(bqm, max_evaluations=2e4, seed=1)
        best = sampleset.first
        assert best.energy == pytest.approx(bqm.energy(best.sample), abs=1e-12)
        grid, bound = float(sampleset.info["grid"]), sampleset.info["rounding_bound"]
        assert 0 < bound <= grid / 2 * (bqm.num_variables + bqm.num_interactions)
        assert bound < 1e-12 * max(1.0, abs(best.energy))
    # The same small float model reaches the brute-force minimum.
    small = dimod.generators.gnp_random_bqm(12, 0.5, "BINARY", random_state=5)
    minimum = dimod.ExactSolver().sample(small).first.energy
    got = sampler.sample(small, max_evaluations=2e4, seed=1)
    assert got.first.energy <= minimum + 2 * got.info["rounding_bound"] + 1e-12


def test_the_annealing_does_not_depend_on_the_grids_magnitude():
    """A 200-variable gnp model under 1500 evaluations gave -19.85 on a grid of 1e-15 and
    -138.75 on 1e-14: gains of 2^40 and more rounded every annealing scale to 0 (every flip
    taken). Now a finer grid changes nothing but the rounding."""
    bqm = dimod.generators.gnp_random_bqm(200, 0.02, "SPIN", random_state=1)
    energies = [PGomeaSampler().sample(bqm, resolution=r, max_evaluations=1500, seed=1).first.energy
                for r in (1e-15, 1e-14, None)]
    assert max(energies) < -100
    assert max(energies) - min(energies) < 5


def test_reads_are_the_runs_distinct_best_solutions_best_first():
    bqm = dimod.generators.gnp_random_bqm(80, 0.1, "SPIN", random_state=7)
    sampleset = PGomeaSampler().sample(bqm, num_reads=5, max_evaluations=3e4, seed=2)
    energies = list(sampleset.record.energy)
    assert 1 < len(sampleset) <= 5 and energies == sorted(energies) and len(set(energies)) == len(energies)
    assert len({tuple(s) for s in sampleset.record.sample}) == len(sampleset)
    # The best sample is the run's answer: the same as with a single read.
    single = PGomeaSampler().sample(bqm, max_evaluations=3e4, seed=2)
    assert sampleset.first.energy == single.first.energy and sampleset.info["seed"] == 2


def test_a_bad_keyword_is_reported_as_the_samplers():
    bqm = dimod.BQM.from_ising({0: 1.0}, {})
    with pytest.raises(TypeError, match=r"PGomeaSampler.sample: unknown parameter 'time_limt' \(its parameters: "):
        PGomeaSampler().sample(bqm, time_limt=1)
    with pytest.raises(TypeError, match=r"PGomeaSampler\(\): unknown parameter 'num_read'"):
        PGomeaSampler(num_read=2)


def test_dimods_conformance_suite_with_the_default_sampler_runs_in_seconds():
    """No budget: dimod's models (up to a few variables) stop at once, their optimum proven."""

    @dimod.testing.load_sampler_bqm_tests(PGomeaSampler)
    class Suite(unittest.TestCase):
        pass

    tests = unittest.TestLoader().loadTestsFromTestCase(Suite)
    start = time.perf_counter()
    outcome = unittest.TextTestRunner(stream=io.StringIO()).run(tests)
    elapsed = time.perf_counter() - start
    assert outcome.wasSuccessful() and outcome.testsRun >= 30, outcome.failures + outcome.errors
    assert elapsed < 10, f"dimod's conformance suite took {elapsed:.1f} s"


def test_a_call_without_limits_says_which_stop_it_took():
    small = dimod.generators.gnp_random_bqm(12, 0.5, "SPIN", random_state=3)
    sampleset = PGomeaSampler().sample(small)
    assert sampleset.info["stop_reason"] == "optimum-proven" and sampleset.info["time_s"] < 1
    assert sampleset.first.energy == pytest.approx(dimod.ExactSolver().sample(small).first.energy)
    larger = dimod.generators.gnp_random_bqm(40, 0.2, "SPIN", random_state=3)
    sampleset = PGomeaSampler().sample(larger, num_reads=3)
    assert sampleset.info["stop_reason"] == "stalled" and sampleset.info["time_s"] < 10
