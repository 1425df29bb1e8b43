"""Ctrl-C: SIGINT to a Python process in the middle of a long solve stops the run promptly, and
the KeyboardInterrupt carries the best solution so far."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import json, signal, sys
import numpy as np

# The test sends SIGINT: Python's own handler, whatever this process inherited (started from a
# background job of a shell without job control, SIGINT comes ignored, and Python then installs
# no handler, so the signal would be ignored, as it should be for such a job).
signal.signal(signal.SIGINT, signal.default_int_handler)
import pgomea

rng = np.random.default_rng(1)
n, m = 4000, 16000
edges = rng.integers(0, n, size=(3 * m, 2))
edges = edges[edges[:, 0] != edges[:, 1]][:m]
problem = pgomea.max_cut(n, edges, rng.integers(1, 100, len(edges)))
heard = []

def hear(time_s, evaluations, best_fitness):
    heard.append(best_fitness)
    if len(heard) == 1:
        print("improving", flush=True)

try:
    pgomea.solve(problem, algorithm=sys.argv[1], backend=None if sys.argv[1] == "serial" else "cpu",
                 time_limit=300, on_improvement=hear)
    print(json.dumps({"finished": True}), flush=True)
except KeyboardInterrupt as interrupt:
    r = interrupt.result
    print(json.dumps({"stop_reason": r.stop_reason, "best_fitness": r.best_fitness,
                      "evaluated": problem.evaluate(r.solution), "last_heard": heard[-1],
                      "time_s": r.time_s}), flush=True)
"""


@pytest.mark.parametrize("algorithm", ["serial", "parallel"])
def test_sigint_stops_a_long_solve_and_the_best_solution_is_kept(algorithm):
    child = subprocess.Popen([sys.executable, "-c", CHILD, algorithm], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "improving"
        time.sleep(1.0)  # let it improve for a while
        os.kill(child.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        stopped_after = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    answer = json.loads(out.strip().splitlines()[-1])
    assert answer.get("stop_reason") == "interrupted", answer
    # The best solution so far: its fitness is the last improvement heard, and it is exact.
    assert answer["best_fitness"] == answer["last_heard"] == answer["evaluated"]
    assert answer["time_s"] < 60
    assert stopped_after < 10, f"the run went on {stopped_after:.1f} s after SIGINT"
