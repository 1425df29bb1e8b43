"""A time limit that runs out during the set-up (linkage model, colourings, layout) of a large
instance ends `pgomea.solve` within half a second of the limit, with one evaluated solution and
the stop reason (issue 57)."""

import time

import numpy as np
import pytest

import pgomea

# Vertices of one edge and many without: the set-up runs over every vertex (a linkage set, a
# colour slot and a layout slot each) and takes seconds on two cores.
VERTICES = 10_000_000


@pytest.mark.parametrize("algorithm", ["serial", "parallel"])
def test_a_time_limit_inside_the_set_up_ends_solve_within_half_a_second(algorithm):
    problem = pgomea.max_cut(VERTICES, np.array([[0, 1]]), np.array([1]))
    limit = 0.5
    start = time.monotonic()
    r = pgomea.solve(problem, algorithm=algorithm, backend=None if algorithm == "serial" else "cpu",
                     time_limit=limit)
    took = time.monotonic() - start
    assert r.stop_reason == "time limit"
    assert r.backend == "none (stopped during set-up)", "the limit came in the set-up"
    assert took <= limit + 0.5, f"solve returned {took:.3f} s after its call, {took - limit:.3f} s after the limit"
    assert len(r.solution) == VERTICES
    assert problem.evaluate(r.solution) == r.best_fitness
