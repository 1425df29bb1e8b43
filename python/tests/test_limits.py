"""A time limit that runs out during the set-up (linkage model, colourings, layout) of a large
instance ends `pgomea.solve` within half a second of the limit, with one evaluated solution and
the stop reason (issue 57)."""

import os
import time

import numpy as np
import pytest

import pgomea

# Vertices of one edge and many without: the set-up runs over every vertex (a linkage set, a
# colour slot and a layout slot each) and takes seconds on two cores.
VERTICES = 10_000_000

# Every stop lands within this of its moment (seconds).
LATENCY = 0.5


def load_average():
    """The load averages over 1, 5 and 15 minutes, for a latency test's report."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def latency_held(what, bound, case):
    """A stop's latency held to `bound` on a busy machine without going blind: `case()` stops a
    run once and returns what it made and the latency (seconds); a miss is measured once more,
    and that second measurement must hold. A phase that does not check the stop misses by seconds
    every time, where other heavy work on the same cores (a CI run beside other builds missed the
    0.5 s by a little so) delays one measurement and seldom the next. Both latencies are printed
    with the load average. Returns what the held case made."""
    made, latency = case()
    load = load_average()
    if latency <= bound:
        print(f"{what}: stopped {latency:.3f} s late (load average {load})")
        return made
    made, again = case()
    load_again = load_average()
    print(f"{what}: stopped {latency:.3f} s late (load average {load}), over {bound:.3f} s; "
          f"measured again: {again:.3f} s (load average {load_again})")
    assert again <= bound, (f"{what}: stopped {latency:.3f} s late at a load average of {load}, and "
                            f"{again:.3f} s late again at {load_again}: over {bound:.3f} s twice")
    return made


@pytest.mark.parametrize("algorithm", ["serial", "parallel"])
def test_a_time_limit_inside_the_set_up_ends_solve_within_half_a_second(algorithm):
    problem = pgomea.max_cut(VERTICES, np.array([[0, 1]]), np.array([1]))
    limit = 0.5

    def limited():
        start = time.monotonic()
        r = pgomea.solve(problem, algorithm=algorithm, backend=None if algorithm == "serial" else "cpu",
                         time_limit=limit)
        return r, time.monotonic() - start - limit

    r = latency_held(f"{algorithm} solve, a limit of {limit} s in the set-up", LATENCY, limited)
    assert r.stop_reason == "time limit"
    assert r.backend == "none (stopped during set-up)", "the limit came in the set-up"
    assert len(r.solution) == VERTICES
    assert problem.evaluate(r.solution) == r.best_fitness
