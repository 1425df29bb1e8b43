"""pgomea: GPU-parallel Gene-pool Optimal Mixing (GOMEA) for gray-box problems, from Python.

The library (Rust, with its CUDA kernels built in) runs the problems; this package builds them
from numpy arrays, a networkx graph, clause lists, tables, a ``GrayBox`` class written as for PyPI
gomea, or a file, and returns results as numpy arrays. The same package runs on a machine without
a GPU, on the CPU: ``pgomea.backend()`` says where ``backend="auto"`` runs, ``result.backend``
where a run ran.

    import pgomea
    problem = pgomea.max_cut(4, [[0, 1], [1, 2], [2, 3], [3, 0]], [1, 2, 3, 4])
    result = pgomea.solve(problem, max_evaluations=1000)
    result.best_fitness, result.solution        # 10, array([0, 1, 0, 1], dtype=uint8) (or flipped)

Real numbers (weights, table values, biases) are taken as they are: the library computes on a
grid of 64-bit integers chosen for them, and results come back in the problem's own units, the
grid and the rounding's bound shown apart (``result.grid``, ``result.rounding_bound``).

``pgomea.dimod.PGomeaSampler`` is a dimod sampler (dimod is an optional dependency).
"""

import typing as _typing

from . import _pgomea
from ._graybox import GrayBox
from ._pgomea import BackendError, Error
from ._problems import Problem, from_networkx, load, max_cut, max_sat, quadratic_model, tables
from ._solve import Result, Trace, solve

__version__ = _pgomea.__version__

#: The most inputs one table subfunction (and so one ``GrayBox`` subfunction) may read.
MAX_TABLE_ARITY: int = _pgomea.MAX_TABLE_ARITY


class BackendChoice(_typing.NamedTuple):
    """Where ``backend="auto"`` runs parallel GOM now: ``name`` is ``cuda`` or ``cpu``,
    ``reason`` says why (the GPU's name, or why there is none)."""

    name: str
    reason: str


def backend() -> BackendChoice:
    """Where ``backend="auto"`` would run parallel GOMEA now, and why."""
    return BackendChoice(*_pgomea.backend())


def devices() -> "list[str]":
    """The CUDA devices, one line each (index, name, compute capability, memory); empty on a
    machine without a CUDA driver or device."""
    return list(_pgomea.devices())


__all__ = [
    "BackendChoice", "BackendError", "Error", "GrayBox", "MAX_TABLE_ARITY", "Problem", "Result", "Trace", "backend",
    "devices", "from_networkx", "load", "max_cut", "max_sat", "quadratic_model", "solve", "tables",
]
