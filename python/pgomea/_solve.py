"""`solve`: one run of the library's `solve`, its options by the library's names, its answer as a
`Result` of numpy arrays."""

from __future__ import annotations

import decimal
import inspect
import json
import math
import textwrap
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

import numpy as np

from . import _pgomea
from ._graybox import GrayBox
from ._pgomea import Error
from ._problems import Problem

__all__ = ["solve", "Result", "Trace"]


class Trace(NamedTuple):
    """One entry per improvement of the best solution: seconds from the start of ``solve``,
    evaluations (full-evaluation equivalents) and the new best fitness on the grid, in the
    problem's units (``Problem.evaluate``'s: exact integers for integer values, else floats; minus
    the energy for a model)."""

    time_s: np.ndarray
    evaluations: np.ndarray
    best_fitness: np.ndarray


class Result:
    """What one run found and what it cost.

    Attributes:
        best_fitness: the best solution's fitness in the problem's units
            (``problem.evaluate(solution)``): an exact ``int`` where the values are integers,
            else a ``float`` computed from the values as given; for an Ising model or a QUBO,
            minus its energy.
        solution: the best solution, a numpy ``uint8`` array of 0/1, one per model variable (for
            an Ising model 1 is spin +1; for a QUBO, the binary values).
        energy: the energy of ``solution`` for Ising models and QUBOs (exact ``int`` for integer
            biases, else a ``float`` from the biases as given); None for other problems.
        grid: the grid the library solved on (``problem.grid``, a ``decimal.Decimal``; 1 for
            integer values); grid_fitness: the best fitness on it, the integer the library
            maximised (for a model, the cut of its reduction to Max-Cut); rounding_bound: the
            most the rounding to the grid moves any fitness or energy (0.0: exact), so the best
            solution on the grid is within twice it of the best of the values as given.
        assignment: ``{label: value}`` of ``solution`` when the problem has labels (a networkx
            graph's nodes, a dimod model's variables), else None.
        evaluations: full-evaluation equivalents spent.
        time_s: seconds from the start of ``solve`` (set-up included); setup_s: the set-up's share
            (linkage model, colouring, layout, upload); before_setup_s: what came before it
            (choosing the defaults from the problem).
        stop_reason: why the run stopped, the library's name for it (a target reached, a time
            limit, an evaluation limit, the optimum proven, the run stalled, interrupted, ...).
        reached_target: whether a target was given and reached.
        backend: where the run ran, in words (``cpu (serial)``, ``cpu (16 threads)``,
            ``cuda (NVIDIA H100 ...)``).
        notes: what the run had to say (the backend ``auto`` chose and why, a fallback to the CPU,
            a population cap).
        trace: a ``Trace`` of numpy arrays.
        config: the configuration the run ran, complete (every default filled in), as a dict.
        outcome: everything the library reported, as a dict (``pgomea run --json``'s object:
            generations, populations, ``report`` facts such as MAX-SAT's unsatisfied clauses, ...).
    """

    __slots__ = ("best_fitness", "solution", "energy", "grid", "grid_fitness", "rounding_bound", "assignment",
                 "evaluations", "time_s", "setup_s", "before_setup_s", "stop_reason", "reached_target", "backend",
                 "notes", "trace", "config", "outcome")

    def __repr__(self) -> str:
        shown = f"energy={self.energy}" if self.energy is not None else f"best_fitness={self.best_fitness}"
        grid = "" if self.grid == 1 and not self.rounding_bound else \
            f" (grid {self.grid}, rounding within {self.rounding_bound:.3g})"
        return (f"<pgomea.Result {shown}{grid}, {self.evaluations:.6g} evaluations, {self.time_s:.3g} s, "
                f"stopped by {self.stop_reason!r}, backend {self.backend!r}>")


# The library's table of run options: (keyword, Python type, default in words, one line, long help,
# choices) per option, in the library's order; `solve`'s keywords and docstring are made from it.
_TABLE = _pgomea.run_options()
# The keyword arguments of `solve` that are run options, by the library's names (RunOptions).
_OPTIONS = tuple(name for name, *_ in _TABLE)


def solve(problem: Union[Problem, GrayBox], *, on_improvement: Optional[Callable[[float, float, Any], Any]] = None,
          fi: Optional[bool] = None, **options: Any) -> Result:
    if fi is not None:
        if options.get("forced_improvement") is not None:
            raise TypeError("solve: give forced_improvement or its short name fi, not both")
        options["forced_improvement"] = fi
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"solve() got an unexpected keyword argument {unknown[0]!r} (the options: "
                        f"{', '.join(_OPTIONS)})")
    return _run(problem, {name: options.get(name) for name in _OPTIONS}, on_improvement)[0]


_SOLVE_HEAD = """Maximises ``problem``'s fitness with GOMEA and returns a ``Result``.

Every option left None takes the default of ``pgomea run`` (the library's ``RunOptions``,
resolved in one place; ``result.config`` shows what was chosen, with the reasons). A run given
no time limit, no evaluation budget and no target stops when it has its answer, by the library's
rule: at once where the optimum is proven (``optimum-proven``: up to 20 variables, enumerated; a
model's reduction to Max-Cut has one more than the model), else once the best has not improved
for max(1 s, half the time spent so far) (``stalled``), and at the latest at a cap of 60 s
(``time-limit``); ``result.stop_reason`` says which.

Args:
    problem: a ``Problem`` (``max_cut``, ``from_networkx``, ``max_sat``, ``tables``,
        ``quadratic_model``, ``load``) or a ``GrayBox`` instance (tabulated once). A ``GrayBox``'s
        ``value_to_reach`` is the run's target, as in gomea, unless ``target`` is given (with no
        time limit or evaluation budget, a value never reached ends at the default cap of 60 s).
    on_improvement: called as ``on_improvement(time_s, evaluations, best_fitness)`` (with the
        GIL, from the solving thread) at every improvement of the best solution, the fitness as
        in ``result.trace``; if it raises, the run stops and its exception is raised with the
        result attached (``exc.result``).
    fi: the short name of ``forced_improvement``.
"""

_SOLVE_TAIL = """
In Python, ``target`` is a fitness in the problem's units (for a model, minus an energy:
``target=-12.5`` stops at energy -12.5 or lower), reached when the fitness on the grid reaches it
(so within ``problem.rounding_bound``), or ``"best-known"`` (``problem.best_known``); ``cuda`` is a
dict of the CUDA backend's tuning fields.

The GIL is released while the run goes on. Ctrl-C (SIGINT) stops the run within one colour
group and raises ``KeyboardInterrupt`` whose attribute ``result`` holds the ``Result`` with
the best solution so far (``stop_reason`` ``interrupted``). Bad input raises
``pgomea.Error`` (a ``ValueError``) naming the option by its keyword.
"""


def _document_solve() -> None:
    """`solve`'s signature and docstring from the library's table of run options, so that
    ``help(pgomea.solve)`` and editors show every option with its default and meaning."""
    lines = []
    for name, kind, default, help_line, details, choices in _TABLE:
        shown = f" (default: {default})" if default else ""
        values = f" One of {', '.join(repr(c) for c in choices)}." if choices else ""
        text = f"{help_line}{shown}.{values} {details}"
        lines.append(textwrap.fill(f"{name} ({kind}): {text}", width=100, initial_indent="    ",
                                   subsequent_indent="        "))
    solve.__doc__ = _SOLVE_HEAD + "\n".join(lines) + "\n" + _SOLVE_TAIL
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("problem", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=Union[Problem, GrayBox])]
    parameters += [inspect.Parameter(name, keyword, default=None, annotation=f"Optional[{kind}]")
                   for name, kind, *_ in _TABLE]
    parameters += [inspect.Parameter("fi", keyword, default=None, annotation=Optional[bool]),
                   inspect.Parameter("on_improvement", keyword, default=None,
                                     annotation=Optional[Callable[[float, float, Any], Any]])]
    solve.__signature__ = inspect.Signature(parameters, return_annotation=Result)


_document_solve()


def _run(problem: Union[Problem, GrayBox], options: Dict[str, Any], on_improvement: Optional[Callable] = None,
         keep: int = 0) -> "tuple[Result, List[np.ndarray]]":
    """One run with the run options ``options`` (by the library's names; None: not given); also
    returns the last ``keep`` best solutions, best first."""
    graybox = problem if isinstance(problem, GrayBox) else None
    if graybox is not None:
        problem = graybox.problem()
    if not isinstance(problem, Problem):
        raise TypeError(f"solve: expected a pgomea.Problem or a pgomea.GrayBox, not {type(problem).__name__}")
    if graybox is not None and options.get("target") is None and problem.best_known is not None:
        # gomea stops where the value to reach is reached, whatever the other limits; a value
        # that is never reached still ends at the library's default cap.
        options = {**options, "target": "best-known"}
        if options.get("time_limit") is None and options.get("max_evaluations") is None:
            options["time_limit"] = _pgomea.DEFAULT_TIME_LIMIT_S
    given = {}
    for name, value in options.items():
        if value is None:
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            # JSON has no NaN or infinity: said here, in the library's words.
            raise Error(f"{name} {value}: expected a positive number")
        if name == "seed" and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64):
            raise Error(f"seed {value!r}: expected an integer from 0 to 2^64 - 1")
        if name == "target" and not isinstance(value, str):
            if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
                raise Error(f"target {value!r}: expected a fitness (a number) or \"best-known\"")
            value = problem._to_grid(value)
        given[name] = value
    callback = None
    if on_improvement is not None:
        def callback(time_s: float, evaluations: float, fitness: int) -> Any:
            return on_improvement(time_s, evaluations, problem._from_grid(fitness))
    (outcome, solution, times, evaluations, fitness, notes, energy, pending, kept) = _pgomea.solve(
        problem._inner, json.dumps(given), callback, keep)
    result = _result(problem, json.loads(outcome), solution, times, evaluations, fitness, notes)
    if pending is not None:
        pending.result = result
        raise pending
    return result, [np.frombuffer(x, dtype=np.uint8).copy() for x in kept]


def _result(problem: Problem, outcome: Dict[str, Any], solution: bytes, times: bytes, evaluations: bytes,
            fitness: bytes, notes: List[str]) -> Result:
    r = Result()
    r.solution = np.frombuffer(solution, dtype=np.uint8).copy()
    r.grid_fitness = int(outcome["best_fitness"])
    r.grid = problem.grid
    r.rounding_bound = problem.rounding_bound
    r.energy = problem.energy(r.solution)
    r.best_fitness = -r.energy if r.energy is not None else problem.evaluate(r.solution)
    r.assignment = None if problem.labels is None else dict(zip(problem.labels, r.solution.tolist()))
    r.evaluations = float(outcome["evaluations"])
    r.time_s = float(outcome["time_s"])
    r.setup_s = float(outcome["setup_s"])
    r.before_setup_s = float(outcome["before_setup_s"])
    r.stop_reason = outcome["stop_reason"]
    r.reached_target = bool(outcome["reached_target"])
    r.backend = outcome["backend"]
    r.notes = list(notes)
    on_grid = np.frombuffer(fitness, dtype=np.int64)
    r.trace = Trace(np.frombuffer(times, dtype=np.float64).copy(), np.frombuffer(evaluations, dtype=np.float64).copy(),
                    np.array([problem._from_grid(int(k)) for k in on_grid],
                             dtype=np.int64 if problem.exact else np.float64))
    r.config = outcome["config"]
    r.outcome = outcome
    return r
