"""Problems: built from numpy arrays, a networkx graph, clause lists, tables or a file, each into
one of the library's problem kinds (the checks and the arithmetic are the library's; this layer
turns arrays into bytes and checks their shapes)."""

from __future__ import annotations

import decimal
import itertools
import os
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from . import _pgomea
from ._pgomea import Error

__all__ = ["Problem", "max_cut", "from_networkx", "max_sat", "tables", "quadratic_model", "load"]


class Problem:
    """A problem pgomea can solve (maximising an integer fitness, exactly).

    Attributes:
        name: its name in results.
        problem_type: ``max-cut``, ``max-sat``, ``nk``, ``trap``, ``ising``, ``qubo``, ...
        variables: the number of the model's variables (a solution's length).
        subfunctions: the number of subfunctions.
        best_known: the optimum the instance states (an ``o`` line, a gray-box function's
            ``value_to_reach``, an adjacent NK landscape's exact optimum), as an integer fitness,
            or None. ``solve(..., target="best-known")`` stops there.
        resolution: one fitness unit in the problem's own terms (a ``decimal.Decimal``; 1 for
            integer problems, e.g. 0.01 for tables of values with two decimals), or None for Ising
            models and QUBOs, whose answer is an energy.
        labels: the model's variable labels (a networkx graph's nodes, a dimod model's
            variables), or None when the variables are 0..n-1.
    """

    __slots__ = ("_inner", "labels")

    def __init__(self, inner: Any, labels: Optional[Sequence[Any]] = None):
        self._inner = inner
        self.labels = list(labels) if labels is not None else None

    name = property(lambda self: self._inner.name)
    problem_type = property(lambda self: self._inner.problem_type)
    variables = property(lambda self: self._inner.variables)
    subfunctions = property(lambda self: self._inner.subfunctions)
    best_known = property(lambda self: self._inner.best_known)

    @property
    def resolution(self) -> Optional[decimal.Decimal]:
        r = self._inner.resolution
        return None if r is None else decimal.Decimal(r)

    def statistics(self) -> dict:
        """Facts about the instance (as ``pgomea info`` prints them)."""
        return dict(self._inner.statistics())

    def _solution_bytes(self, solution: Any) -> bytes:
        x = np.asarray(solution)
        if x.ndim != 1:
            raise Error(f"a solution is one-dimensional, not of shape {x.shape}")
        if x.size and not np.all((x == 0) | (x == 1)):
            raise Error("a solution holds 0 and 1 only")
        return np.ascontiguousarray(x, dtype=np.uint8).tobytes()

    def evaluate(self, solution: Any) -> int:
        """The fitness of a solution (0/1 per model variable): what ``solve`` maximises."""
        return self._inner.evaluate(self._solution_bytes(solution))

    def energy(self, solution: Any) -> Optional[decimal.Decimal]:
        """The exact energy of a solution (0/1 per variable, 1 for spin +1) of an Ising model or
        QUBO; None for other problems."""
        e = self._inner.energy(self._solution_bytes(solution))
        return None if e is None else decimal.Decimal(e)

    def __repr__(self) -> str:
        return (f"<pgomea.Problem {self.name!r}: {self.problem_type}, {self.variables} variables, "
                f"{self.subfunctions} subfunctions>")


def _native(array: np.ndarray, dtype: Any) -> bytes:
    return np.ascontiguousarray(array, dtype=dtype).tobytes()


def _integer_or_float(name: str, values: Any) -> tuple[np.ndarray, bool]:
    """`values` as int64 (integers, booleans) or float64 (anything real): (array, is_float)."""
    a = np.asarray(values)
    if a.dtype.kind in "biu":
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise Error(f"{name}: {a.max()} is beyond 64-bit integers")
        return a.astype(np.int64), False
    if a.dtype.kind == "f":
        return a.astype(np.float64), True
    if a.dtype.kind == "O":
        # Python ints beyond 64 bits, or values that are no numbers.
        for k, v in enumerate(a.ravel()):
            if not isinstance(v, (int, float, np.integer, np.floating)):
                raise Error(f"{name}[{k}] is {v!r}: expected a number")
            if isinstance(v, int) and not -2**63 <= v < 2**63:
                raise Error(f"{name}[{k}] = {v} is beyond 64-bit integers")
        return _integer_or_float(name, a.astype(np.float64 if any(
            isinstance(v, (float, np.floating)) for v in a.ravel()) else np.int64))
    raise Error(f"{name}: expected numbers, found an array of {a.dtype}")


def _indices(name: str, values: Any, limit: int, what: str) -> np.ndarray:
    """Integer indices in 0..limit-1, checked (a negative or too large one is named)."""
    a = np.asarray(values)
    if a.size == 0:
        return np.zeros(a.shape, dtype=np.uint32)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise Error(f"{name}: {what} are integers, found {a.dtype}")
    bad = np.flatnonzero((a < 0) | (a >= limit))
    if bad.size:
        k = np.unravel_index(bad[0], a.shape)
        where = ", ".join(str(int(i)) for i in k)
        raise Error(f"{name}[{where}] = {a[k]}: {what} are in 0..{limit - 1}")
    return a.astype(np.uint32)


def max_cut(n: int, edges: Any, weights: Any = None, *, name: str = "max-cut",
            resolution: Optional[float] = None, labels: Optional[Sequence[Any]] = None) -> Problem:
    """Weighted Max-Cut on vertices 0..n-1: maximise the total weight of the edges cut.

    Args:
        n: the number of vertices.
        edges: an ``m x 2`` integer array of vertex pairs (no self-loops; parallel edges add up).
        weights: ``m`` weights, 1 each by default. Integers are exact; real weights are put on a
            grid of integers (``resolution``, or found from their decimals; refused with the reason
            when no exact grid fits 64-bit integers), and the fitness counts multiples of it.
    """
    n = _count("n", n)
    e = np.asarray(edges)
    if e.size == 0:
        e = e.reshape(0, 2)
    if e.ndim != 2 or e.shape[1] != 2:
        raise Error(f"max_cut: edges must be an m x 2 array of vertex pairs, not of shape {e.shape}")
    e = _indices("edges", e, n, "vertices")
    loops = np.flatnonzero(e[:, 0] == e[:, 1])
    if loops.size:
        k = int(loops[0])
        raise Error(f"max_cut: edges[{k}] = ({e[k, 0]}, {e[k, 1]}) is a self-loop")
    m = e.shape[0]
    if weights is None:
        w, is_float = np.ones(m, dtype=np.int64), False
    else:
        w, is_float = _integer_or_float("weights", weights)
        if w.shape != (m,):
            raise Error(f"max_cut: {m} edges need {m} weights, not an array of shape {w.shape}")
    inner = _pgomea.max_cut(name, n, _native(e, np.uint32), w.tobytes(), is_float, _resolution(resolution))
    return Problem(inner, labels)


def from_networkx(graph: Any, weight: str = "weight", *, resolution: Optional[float] = None) -> Problem:
    """Weighted Max-Cut of an undirected networkx graph: the edge attribute ``weight`` (1 where
    absent); the nodes, in ``graph.nodes`` order, become variables 0..n-1 and
    ``result.assignment`` maps them back. (Only the graph's own methods are used: pgomea never
    imports networkx.)"""
    if graph.is_directed():
        raise Error("from_networkx: a directed graph; Max-Cut is on undirected graphs (graph.to_undirected())")
    nodes = list(graph.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    pairs, weights = [], []
    for u, v, d in graph.edges(data=True):
        if u == v:
            raise Error(f"from_networkx: a self-loop on node {u!r}")
        pairs.append((index[u], index[v]))
        weights.append(d.get(weight, 1))
    name = graph.graph.get("name") or "networkx"
    return max_cut(len(nodes), np.array(pairs, dtype=np.int64).reshape(-1, 2), weights, name=name,
                   resolution=resolution, labels=nodes)


def max_sat(clauses: Iterable[Sequence[int]], weights: Any = None, hard: Any = None, *,
            variables: Optional[int] = None, name: str = "max-sat") -> Problem:
    """Weighted partial MAX-SAT: maximise the total weight of the satisfied clauses.

    Args:
        clauses: lists of DIMACS literals: 1-based variables, negative for a negated one
            (``[1, -3]`` is x1 or not x3).
        weights: a positive integer weight per clause (1 each by default).
        hard: which clauses are hard: a boolean per clause, or clause indices. A hard clause
            weighs 1 + the sum of the soft weights, so every hard clause outweighs all soft ones.
        variables: the number of variables (default: the largest one used).
    """
    clauses = [list(c) for c in clauses]
    m = len(clauses)
    lengths = np.fromiter((len(c) for c in clauses), dtype=np.int64, count=m)
    offsets = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    literals = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64, count=int(offsets[-1]))
    if weights is None:
        w = np.ones(m, dtype=np.int64)
    else:
        w, is_float = _integer_or_float("weights", weights)
        if is_float:
            if not np.all(np.isfinite(w)) or not np.all(w == np.round(w)):
                raise Error("max_sat: clause weights are integers")
            w = w.astype(np.int64)
        if w.shape != (m,):
            raise Error(f"max_sat: {m} clauses need {m} weights, not an array of shape {w.shape}")
    h = np.zeros(m, dtype=np.uint8)
    if hard is not None:
        marks = np.asarray(hard)
        if marks.dtype == bool:
            if marks.shape != (m,):
                raise Error(f"max_sat: {m} clauses need {m} hard marks, not an array of shape {marks.shape}")
            h[marks] = 1
        else:
            h[_indices("hard", marks, m, "clause indices")] = 1
    n = variables if variables is not None else max(1, int(np.abs(literals).max(initial=0)))
    inner = _pgomea.max_sat(name, _count("variables", n), _native(offsets, np.uint32), literals.tobytes(),
                            w.tobytes(), h.tobytes())
    return Problem(inner)


def tables(n: int, variables: Sequence[Sequence[int]], values: Sequence[Any], *, optimum: Any = None,
           resolution: Optional[float] = None, name: str = "tables", problem_type: str = "tables") -> Problem:
    """A problem given by tables: subfunction s reads the variables ``variables[s]`` (at most
    ``MAX_TABLE_ARITY``, all different) and is worth ``values[s][i]``, i their genes read as a
    binary number with the first variable the most significant bit. The fitness is the sum.
    Integer values are exact; real ones are put on one grid (``resolution``, or found from their
    decimals) with ``optimum`` (the value to reach, when known)."""
    n = _count("n", n)
    if len(variables) != len(values):
        raise Error(f"tables: {len(variables)} variable lists but {len(values)} tables")
    arities = np.fromiter((len(v) for v in variables), dtype=np.int64, count=len(variables))
    flat_vars = _indices("variables", np.fromiter(itertools.chain.from_iterable(variables), dtype=np.int64,
                                                  count=int(arities.sum())), n, "variables")
    for s, k in enumerate(arities):
        if not 1 <= k <= _pgomea.MAX_TABLE_ARITY:
            raise Error(f"subfunction {s} reads {k} variables; a table reads 1 to {_pgomea.MAX_TABLE_ARITY}")
        if len(values[s]) != 1 << int(k):
            raise Error(f"subfunction {s} reads {k} variables: its table has 2^{k} = {1 << int(k)} values, "
                        f"not {len(values[s])}")
    flat, is_float = _integer_or_float("values", list(itertools.chain.from_iterable(values)))
    if optimum is not None and not is_float and not float(optimum).is_integer():
        flat, is_float = flat.astype(np.float64), True
    if optimum is not None:
        optimum = float(optimum) if is_float else int(optimum)
    inner = _pgomea.tables(name, problem_type, n, _native(arities, np.uint32), flat_vars.tobytes(), flat.tobytes(),
                           is_float, optimum, _resolution(resolution))
    return Problem(inner)


def quadratic_model(vartype: str, n: int, linear_index: Any, linear_bias: Any, row: Any, col: Any,
                    quadratic_bias: Any, offset: float = 0.0, *, resolution: Optional[float] = None,
                    labels: Optional[Sequence[Any]] = None, name: Optional[str] = None) -> Problem:
    """A binary quadratic model over variables 0..n-1, ``SPIN`` (values -1/+1) or ``BINARY``
    (0/1), minimising ``offset + sum_k linear_bias[k] x[linear_index[k]] + sum_k quadratic_bias[k]
    x[row[k]] x[col[k]]``: solved exactly as Max-Cut on n + 1 vertices (the extra vertex carries
    the linear biases). Biases are put on a grid of integers (``resolution``, or found from
    their decimals; integer biases are exact). A solution gives 1 for spin +1; ``energy`` is
    exact."""
    n = _count("n", n)
    li = _indices("linear_index", np.asarray(linear_index).ravel(), max(n, 1), "variables")
    lb = np.asarray(linear_bias, dtype=np.float64).ravel()
    r = _indices("row", np.asarray(row).ravel(), max(n, 1), "variables")
    c = _indices("col", np.asarray(col).ravel(), max(n, 1), "variables")
    qb = np.asarray(quadratic_bias, dtype=np.float64).ravel()
    if li.shape != lb.shape or not r.shape == c.shape == qb.shape:
        raise Error("quadratic_model: index and bias arrays of different lengths")
    inner = _pgomea.quadratic_model(name or f"{vartype.lower()}-n{n}", str(vartype), n, li.tobytes(), lb.tobytes(),
                                    r.tobytes(), c.tobytes(), qb.tobytes(), float(offset), _resolution(resolution))
    return Problem(inner, labels)


def load(path: "str | os.PathLike[str]", format: Optional[str] = None) -> Problem:
    """An instance file of any kind ``pgomea run --instance`` reads: a graph (G-set/rudy), ``.nk``,
    ``.mk``, ``.cnf``, ``.wcnf``, ``.qubo``, ``.ising``. ``format`` (``max-cut``, ``nk``, ``mk``,
    ``max-sat``, ``qubo``, ``ising``) overrides the detection from the extension or content. A
    malformed file raises ``pgomea.Error`` with ``file:line``; ``best_known`` is the optimum the
    file states (or the exact one of an adjacent NK landscape)."""
    return Problem(_pgomea.load(os.fspath(path), format))


def _count(name: str, n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise Error(f"{name} = {n!r}: expected a number of variables (a non-negative integer)")
    return int(n)


def _resolution(r: Optional[float]) -> Optional[float]:
    # The library checks it (positive, finite) and says why.
    return None if r is None else float(r)
