"""`PGomeaSampler`, a dimod sampler (``pip install dimod``; imported only with this module)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import dimod
import numpy as np

from . import _solve, backend, devices
from ._problems import quadratic_model

__all__ = ["PGomeaSampler"]


class PGomeaSampler(dimod.Sampler):
    """A dimod sampler that minimises SPIN and BINARY binary quadratic models with pgomea.

    A model's linear and quadratic biases are reduced exactly to weighted Max-Cut on one more
    vertex (it carries the linear biases) and solved by GOMEA, serial or parallel, on the CPU or
    a GPU. The library works in 64-bit integers, so the biases are put on a grid first: the
    ``resolution`` parameter, or when None the grid of the biases' own decimals (integer biases
    stay exact; 0.25 and -1.5 give 0.01); biases whose decimals need a grid too fine for 64-bit
    integers (float noise such as 0.1 + 0.2) are refused with a resolution to give. The energies
    of the returned ``SampleSet`` are dimod's own (``SampleSet.from_samples_bqm``), exact for each
    sample whatever the grid; the data vector ``fitness`` holds the cut value pgomea maximised.

    Parameters of ``sample`` (each also accepted by the constructor as a default for every call):

    * ``num_reads``: independent runs (default 1), read k with seed ``seed + k``;
    * ``resolution``: the bias grid (see above);
    * every keyword of ``pgomea.solve`` (``algorithm``, ``backend``, ``time_limit``,
      ``max_evaluations``, ``seed``, ``linkage``, ``local_search``, ...), with its defaults:
      without a limit a run takes ``pgomea run``'s 10 s, per read.

    ``info`` holds the backend, the resolution and, per read, its time (with the set-up's share and
    what came before it), evaluations and stop reason. Ctrl-C stops the read in flight and raises ``KeyboardInterrupt`` (its ``result``
    attribute holds that read's ``pgomea.Result``).
    """

    def __init__(self, **defaults: Any) -> None:
        unknown = set(defaults) - set(self.parameters)
        if unknown:
            raise TypeError(f"PGomeaSampler: unknown parameters {sorted(unknown)}")
        self._defaults = defaults
        chosen = backend()
        self._properties = {
            "auto_backend": chosen.name,
            "auto_backend_reason": chosen.reason,
            "devices": devices(),
            "defaults": dict(defaults),
        }

    @property
    def parameters(self) -> Dict[str, List[str]]:
        names = ("num_reads", "resolution") + _solve._OPTIONS + ("fi",)
        return {name: [] for name in names}

    @property
    def properties(self) -> Dict[str, Any]:
        return self._properties

    def sample(self, bqm: dimod.BinaryQuadraticModel, **parameters: Any) -> dimod.SampleSet:
        """Samples ``bqm`` (SPIN or BINARY): ``num_reads`` runs of pgomea, the best solution of each
        a sample."""
        given = {**self._defaults, **parameters}
        num_reads = int(given.pop("num_reads", 1))
        if num_reads < 1:
            raise ValueError(f"num_reads = {num_reads}: at least 1")
        resolution: Optional[float] = given.pop("resolution", None)
        linear, (row, col, quadratic), _offset, labels = bqm.to_numpy_vectors(return_labels=True)
        n = len(labels)
        # The offset changes no sample; dimod adds it to the energies.
        problem = quadratic_model(bqm.vartype.name, n, np.arange(n), linear, row, col, quadratic, 0.0,
                                  resolution=resolution, labels=labels, name=f"bqm-n{n}")
        samples = np.empty((num_reads, n), dtype=np.int8)
        fitness, runs = [], []
        seed = given.pop("seed", None)
        for k in range(num_reads):
            result = _solve.solve(problem, seed=None if seed is None else seed + k, **given)
            if seed is None:
                # Later reads count on from the seed the first one resolved to.
                seed = int(result.config["seed"]) - k
            x = result.solution.astype(np.int8)
            samples[k] = 2 * x - 1 if bqm.vartype is dimod.SPIN else x
            fitness.append(result.best_fitness)
            runs.append({"seed": result.config["seed"], "time_s": result.time_s, "setup_s": result.setup_s,
                         "before_setup_s": result.before_setup_s, "evaluations": result.evaluations,
                         "stop_reason": result.stop_reason, "backend": result.backend})
        info = {"backend": runs[0]["backend"] if runs else None, "resolution": problem.statistics().get("resolution"),
                "runs": runs}
        return dimod.SampleSet.from_samples_bqm((samples, labels), bqm, info=info,
                                                fitness=np.asarray(fitness, dtype=np.int64))
