"""PGomeaSampler: dimod's conformance checks, and brute-force optima of random small models."""

import itertools
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


def test_sample_ising_and_sample_qubo_with_labels_reads_and_a_resolution():
    sampler = PGomeaSampler(**BUDGET)
    h = {"a": 0.5, "b": -1.0}
    J = {("a", "b"): -1.5, ("b", ("c", 2)): 2.0}
    sampleset = sampler.sample_ising(h, J, num_reads=3, seed=5)
    assert len(sampleset) == 3 and set(sampleset.variables) == {"a", "b", ("c", 2)}
    assert [run["seed"] for run in sampleset.info["runs"]] == [5, 6, 7]
    assert all(0 <= run["before_setup_s"] and run["before_setup_s"] + run["setup_s"] <= run["time_s"]
               for run in sampleset.info["runs"])
    assert sampleset.info["resolution"] == "0.1"  # the grid of the biases' decimals
    exact = dimod.ExactSolver().sample_ising(h, J).first.energy
    assert all(e == pytest.approx(exact) for e in sampleset.record.energy)
    Q = {(0, 0): -1, (1, 1): -1, (0, 1): 3, (1, 2): -2, (2, 2): 1}
    assert sampler.sample_qubo(Q).first.energy == dimod.ExactSolver().sample_qubo(Q).first.energy
    # Biases on a given grid; a bias off the grid is refused, naming it.
    assert sampler.sample_ising(h, J, resolution=0.25).first.energy == pytest.approx(exact)
    with pytest.raises(pgomea.Error, match="not a multiple of the resolution 0.75"):
        sampler.sample_ising(h, J, resolution=0.75)
    with pytest.raises(pgomea.Error, match="give a resolution"):
        sampler.sample_ising({0: 0.1 + 0.2, 1: 1000.0}, {(0, 1): 1.0})
    with pytest.raises(ValueError, match="num_reads"):
        sampler.sample_ising(h, J, num_reads=0)
