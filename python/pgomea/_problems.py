"""Problems: built from numpy arrays, a networkx graph, clause lists, tables or a file, each into
one of the library's problem kinds (the checks and the arithmetic are the library's; this layer
turns arrays into bytes and checks their shapes)."""

from __future__ import annotations

import decimal
import itertools
import os
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np

from . import _pgomea
from ._pgomea import Error

__all__ = ["Problem", "max_cut", "from_networkx", "max_sat", "tables", "quadratic_model", "load"]


class Problem:
    """A problem pgomea can solve: it maximises a fitness (a model minimises its energy).

    The library computes with 64-bit integers: a problem given in real numbers is put on a *grid*
    (every value rounded to the nearest multiple of ``grid``), and what it reports is turned back
    into the problem's own units. Integer values stay exact.

    Attributes:
        name: its name in results.
        problem_type: ``max-cut``, ``max-sat``, ``nk``, ``trap``, ``ising``, ``qubo``, ...
        variables: the number of the model's variables (a solution's length).
        subfunctions: the number of subfunctions.
        best_known: the optimum the instance states (an ``o`` line, a gray-box function's
            ``value_to_reach``, an adjacent NK landscape's exact optimum, or the data directory's
            best-known value of a file, see ``load``) in the problem's units (as on the grid), or
            None. ``solve(..., target="best-known")`` stops there.
        grid: one integer unit of the values in the problem's own terms (a ``decimal.Decimal``:
            1 for integer problems; 0.01 for values with two decimals; for float values whose
            own decimals need a grid too fine for 64-bit integers, such as ``0.1 + 0.2`` or
            random floats, the finest grid on which every sum the run forms stays within 64-bit
            integers, about 10^-17 of the values' total).
        rounding_bound: the most the rounding to the grid moves any fitness or energy (0.0 where
            every value is on the grid exactly). The best fitness on the grid is within twice it
            of the best fitness of the values as given.
        exact: whether the values are integers (then every fitness and energy is reported as an
            exact ``int``; else as a ``float`` of the values as given).
        labels: the model's variable labels (a networkx graph's nodes, a dimod model's
            variables), or None when the variables are 0..n-1.
    """

    __slots__ = ("_inner", "labels", "_as_given")

    def __init__(self, inner: Any, labels: Optional[Sequence[Any]] = None,
                 as_given: Optional[Callable[[np.ndarray], float]] = None):
        self._inner = inner
        self.labels = list(labels) if labels is not None else None
        # The fitness (or a model's energy) of a 0/1 solution from the values as given (floats).
        self._as_given = as_given

    name = property(lambda self: self._inner.name)
    problem_type = property(lambda self: self._inner.problem_type)
    variables = property(lambda self: self._inner.variables)
    subfunctions = property(lambda self: self._inner.subfunctions)
    rounding_bound = property(lambda self: self._inner.rounding)

    @property
    def grid(self) -> decimal.Decimal:
        return decimal.Decimal(self._inner.grid)

    @property
    def exact(self) -> bool:
        return self.grid == 1 and self.rounding_bound == 0

    @property
    def is_model(self) -> bool:
        """Whether this is an Ising model or a QUBO (it has an energy; its fitness is minus it)."""
        return self._inner.energy_of_fitness(0) is not None

    @property
    def best_known(self) -> Union[int, float, None]:
        k = self._inner.best_known
        return None if k is None else self._from_grid(k)

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

    def evaluate(self, solution: Any) -> Union[int, float]:
        """The fitness of a solution (0/1 per model variable), what ``solve`` maximises, in the
        problem's units: an exact ``int`` for integer values, else a ``float`` computed from the
        values as given. For an Ising model or a QUBO, minus its energy."""
        if self.is_model:
            return -self.energy(solution)
        if self.exact or self._as_given is None:
            return self._from_grid(self.evaluate_on_grid(solution))
        return self._as_given(np.frombuffer(self._solution_bytes(solution), dtype=np.uint8))

    def evaluate_on_grid(self, solution: Any) -> int:
        """The fitness the library computes of a solution: an integer count of ``grid`` (for an
        Ising model or a QUBO, the cut of its reduction to Max-Cut)."""
        return self._inner.evaluate(self._solution_bytes(solution))

    def energy(self, solution: Any) -> Union[int, float, None]:
        """The energy of a solution (0/1 per variable, 1 for spin +1) of an Ising model or a
        QUBO: an exact ``int`` for integer biases, else a ``float`` from the biases as given (as
        dimod computes it); None for other problems."""
        if not self.is_model:
            return None
        x = self._solution_bytes(solution)
        if self.exact or self._as_given is None:
            return _number(decimal.Decimal(self._inner.energy(x)), self.exact)
        return self._as_given(np.frombuffer(x, dtype=np.uint8))

    def _from_grid(self, k: int) -> Union[int, float]:
        """A fitness on the grid in the problem's units (a model's: minus the energy)."""
        e = self._inner.energy_of_fitness(int(k))
        value = -decimal.Decimal(e) if e is not None else k * self.grid
        return _number(value, self.exact)

    def _to_grid(self, value: Any) -> int:
        """The least fitness on the grid worth at least ``value`` in the problem's units (minus a
        model's energy), to stop at."""
        value = decimal.Decimal(str(value)) if isinstance(value, float) else decimal.Decimal(value)
        e0 = self._inner.energy_of_fitness(0)
        if e0 is None:
            return int((value / self.grid).to_integral_value(rounding=decimal.ROUND_CEILING))
        # A model's energy falls by the same step per unit of cut: E(k) = E(0) - k * step.
        step = decimal.Decimal(e0) - decimal.Decimal(self._inner.energy_of_fitness(1))
        if step == 0:
            return 0  # a model of no terms: every solution has the same energy
        return int(((value + decimal.Decimal(e0)) / step).to_integral_value(rounding=decimal.ROUND_CEILING))

    def __repr__(self) -> str:
        grid = "" if self.exact else f", grid {self.grid}"
        return (f"<pgomea.Problem {self.name!r}: {self.problem_type}, {self.variables} variables, "
                f"{self.subfunctions} subfunctions{grid}>")


def _number(value: decimal.Decimal, exact: bool) -> Union[int, float]:
    return int(value) if exact else float(value)


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
        weights: ``m`` weights, 1 each by default. Integers are exact; real weights are taken as
            they are: the library solves them rounded to a grid (``problem.grid``), and the
            results are the weights' own cut values.
        resolution: the grid to round real weights to (default: the weights' own decimals where
            that fits 64-bit integers, else the finest grid that does; ``problem.rounding_bound``
            says how far the rounding moves a cut).
        labels: the vertices' labels (``result.assignment`` maps them to their sides).
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
    as_given = None
    if is_float:
        u, v = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64)
        as_given = lambda x: float(np.sum(w[x[u] != x[v]]))  # noqa: E731
    return Problem(inner, labels, as_given)


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
    Integer values are exact; real ones are taken as they are: the library solves them rounded to
    one grid (``resolution`` when given, else their own decimals where that fits 64-bit integers,
    else the finest grid that does; ``problem.grid``, ``problem.rounding_bound``) and results
    are the values' own sums. ``optimum``: the value to reach, when known (on the same grid)."""
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
    as_given = None
    if is_float:
        # Entry of subfunction s: its variables' genes, the first the most significant bit.
        starts = np.zeros(len(arities), dtype=np.int64)
        np.cumsum(arities[:-1], out=starts[1:])
        bits = (np.repeat(starts + arities - 1, arities) - np.arange(int(arities.sum()))).astype(np.int64)
        table_starts = np.zeros(len(arities), dtype=np.int64)
        np.cumsum(np.left_shift(1, arities[:-1]), out=table_starts[1:])
        reads = flat_vars.astype(np.int64)

        def as_given(x: np.ndarray) -> float:
            if not len(arities):
                return 0.0
            index = np.add.reduceat(x[reads].astype(np.int64) << bits, starts)
            return float(np.sum(flat[table_starts + index]))
    return Problem(inner, as_given=as_given)


def quadratic_model(vartype: str, n: int, linear_index: Any, linear_bias: Any, row: Any, col: Any,
                    quadratic_bias: Any, offset: float = 0.0, *, resolution: Optional[float] = None,
                    labels: Optional[Sequence[Any]] = None, name: Optional[str] = None) -> Problem:
    """A binary quadratic model over variables 0..n-1, ``SPIN`` (values -1/+1) or ``BINARY``
    (0/1), minimising ``offset + sum_k linear_bias[k] x[linear_index[k]] + sum_k quadratic_bias[k]
    x[row[k]] x[col[k]]``: solved as Max-Cut on n + 1 vertices (the extra vertex carries the
    linear biases), exactly for the biases on the grid. Real biases are taken as they are: rounded
    to one grid (``resolution`` when given, else their own decimals where that fits 64-bit
    integers, else the finest grid that does; ``problem.grid``, ``problem.rounding_bound``, the
    most the rounding moves any energy), and energies are computed from the biases as given
    (integer biases: exact ``int``). A solution gives 1 for spin +1."""
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
    spin = str(vartype) == "SPIN"
    li, r, c, offset = li.astype(np.int64), r.astype(np.int64), c.astype(np.int64), float(offset)

    def as_given(x: np.ndarray) -> float:
        v = 2.0 * x - 1.0 if spin else x.astype(np.float64)
        return offset + float(np.dot(lb, v[li])) + float(np.dot(qb, v[r] * v[c]))
    return Problem(inner, labels, as_given)


def load(path: "str | os.PathLike[str]", format: Optional[str] = None, *,
         instances_dir: "str | os.PathLike[str] | None" = None) -> Problem:
    """An instance file of any kind ``pgomea run --instance`` reads: a graph (G-set/rudy), ``.nk``,
    ``.mk``, ``.cnf``, ``.wcnf``, ``.qubo``, ``.ising``. ``format`` (``max-cut``, ``nk``, ``mk``,
    ``max-sat``, ``qubo``, ``ising``) overrides the detection from the extension or content. A
    malformed file raises ``pgomea.Error`` with ``file:line``.

    ``best_known`` is the optimum the file states (or the exact one of an adjacent NK landscape),
    else the best-known value that the instance data directory's ``best_known.csv`` gives the file
    (by its folder and name, as ``pgomea run --instance`` finds it, e.g. ``gset/G1.txt``), so that
    ``target="best-known"`` works on G-set files. The data directory is ``instances_dir`` when
    given, else ``$PGOMEA_INSTANCES``, else ``./instances``, else the directory two levels above
    the file (``DIR/gset/G1.txt``) where it holds ``best_known.csv``."""
    path = os.fspath(path)
    dirs = [instances_dir] if instances_dir is not None else [
        os.environ.get("PGOMEA_INSTANCES"), "instances", os.path.dirname(os.path.dirname(os.path.abspath(path)))]
    dirs = [os.fspath(d) for d in dirs if d and os.path.isfile(os.path.join(d, "best_known.csv"))]
    if instances_dir is not None and not dirs:
        raise Error(f"instances_dir {os.fspath(instances_dir)}: no best_known.csv there")
    return Problem(_pgomea.load(path, format, dirs))


def _count(name: str, n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise Error(f"{name} = {n!r}: expected a number of variables (a non-negative integer)")
    return int(n)


def _resolution(r: Optional[float]) -> Optional[float]:
    # The library checks it (positive, finite) and says why.
    return None if r is None else float(r)
