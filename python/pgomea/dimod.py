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
    a GPU. Biases are taken as they are: the library computes with 64-bit integers, so they are
    rounded to a grid (``resolution`` when given; else the biases' own decimals where that fits,
    exactly, as for integer biases; else the finest grid on which every sum the run forms stays
    within 64-bit integers). ``info["grid"]`` is the grid and ``info["rounding_bound"]`` the most
    the rounding moves any energy (0.0 where exact): the best sample on the grid is within twice
    it of the best of the model as given. The energies of the returned ``SampleSet`` are dimod's
    own (``SampleSet.from_samples_bqm``), exact for each sample and the model as given.

    What a read is: one call is one run of pgomea, whatever ``num_reads``; the samples are the
    run's last ``num_reads`` best solutions (each improvement of the best so far, so all
    distinct), best first. A run that improved fewer times returns fewer samples. For
    independent runs, call ``sample`` again with other seeds.

    How long: a call given no ``time_limit``, ``max_evaluations`` or ``target`` stops by the
    library's rule for a run without limits: at once where the optimum is proven
    (``optimum-proven``: up to 20 variables, enumerated; a model's reduction to Max-Cut has one
    more than the model), else once the best has not improved for max(1 s, half the time spent
    so far) (``stalled``), and at the latest at a cap of 60 s (``time limit``). ``info["stop_reason"]`` says which stop it took.

    Parameters of ``sample`` (each also accepted by the constructor as a default for every call):

    * ``num_reads``: the most samples (default 1), see above;
    * ``resolution``: the grid to round the biases to (see above);
    * every keyword of ``pgomea.solve`` (``algorithm``, ``backend``, ``time_limit``,
      ``max_evaluations``, ``seed``, ``linkage``, ``local_search``, ...), with its defaults.

    An unknown parameter raises ``TypeError`` naming it and the sampler. ``info`` holds the
    backend, the grid, the rounding's bound, the stop reason, the seed, the run's time (with the
    set-up's share and what came before it) and its evaluations; the data vector ``fitness`` is
    each sample's cut on the grid, what pgomea maximised. Ctrl-C stops the run and raises
    ``KeyboardInterrupt`` (its ``result`` attribute holds the run's ``pgomea.Result``).
    """

    def __init__(self, **defaults: Any) -> None:
        self._check("PGomeaSampler()", defaults)
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

    def _check(self, where: str, given: Dict[str, Any]) -> None:
        unknown = sorted(set(given) - set(self.parameters))
        if unknown:
            raise TypeError(f"{where}: unknown parameter{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(map(repr, unknown))} (its parameters: {', '.join(self.parameters)})")

    def sample(self, bqm: dimod.BinaryQuadraticModel, **parameters: Any) -> dimod.SampleSet:
        """Samples ``bqm`` (SPIN or BINARY): one run of pgomea, its last ``num_reads`` best
        solutions the samples, best first (see the class's documentation)."""
        self._check("PGomeaSampler.sample", parameters)
        given = {**self._defaults, **parameters}
        num_reads = given.pop("num_reads", 1)
        if isinstance(num_reads, bool) or not isinstance(num_reads, (int, np.integer)) or num_reads < 1:
            raise ValueError(f"PGomeaSampler.sample: num_reads = {num_reads!r}: expected an integer of at least 1")
        resolution: Optional[float] = given.pop("resolution", None)
        if "fi" in given:
            fi = given.pop("fi")
            if given.get("forced_improvement") is not None:
                raise TypeError("PGomeaSampler.sample: give forced_improvement or its short name fi, not both")
            given["forced_improvement"] = fi
        linear, (row, col, quadratic), _offset, labels = bqm.to_numpy_vectors(return_labels=True)
        n = len(labels)
        # The offset changes no sample; dimod adds it to the energies.
        problem = quadratic_model(bqm.vartype.name, n, np.arange(n), linear, row, col, quadratic, 0.0,
                                  resolution=resolution, labels=labels, name=f"bqm-n{n}")
        result, kept = _solve._run(problem, {name: given.get(name) for name in _solve._OPTIONS}, keep=int(num_reads))
        solutions = kept or [result.solution]
        samples = np.array(solutions, dtype=np.int8).reshape(len(solutions), n)
        if bqm.vartype is dimod.SPIN:
            samples = 2 * samples - 1
        fitness = np.array([problem.evaluate_on_grid(x) for x in solutions], dtype=np.int64)
        info = {"backend": result.backend, "grid": str(problem.grid), "rounding_bound": problem.rounding_bound,
                "stop_reason": result.stop_reason, "seed": result.config["seed"], "time_s": result.time_s,
                "setup_s": result.setup_s, "before_setup_s": result.before_setup_s,
                "evaluations": result.evaluations}
        return dimod.SampleSet.from_samples_bqm((samples, labels), bqm, info=info, fitness=fitness)
