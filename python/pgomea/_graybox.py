"""`GrayBox`: a gray-box fitness function written as for PyPI gomea 1.1, tabulated once."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from . import _pgomea
from ._pgomea import Error
from ._problems import Problem, tables

__all__ = ["GrayBox"]

# gomea's "no value to reach" (its constructor's default).
_NO_VALUE_TO_REACH = 1e308


class GrayBox:
    """Base class of a gray-box fitness function, with the interface of PyPI gomea 1.1's
    ``gomea.fitness.GBOFitnessFunctionDiscrete``: a class written for gomea runs in pgomea with
    only its base class changed.

    Write three methods::

        class Trap(pgomea.GrayBox):
            def number_of_subfunctions(self):
                return self.number_of_variables // 5

            def inputs_to_subfunction(self, subfunction_index):
                return range(5 * subfunction_index, 5 * subfunction_index + 5)

            def subfunction(self, subfunction_index, variables):
                u = int(np.sum(variables[self.inputs_to_subfunction(subfunction_index)]))
                return 5 if u == 5 else 4 - u

        result = pgomea.solve(Trap(100, value_to_reach=100), target="best-known")

    As in gomea:

    * the constructor takes ``(number_of_variables, value_to_reach=1e308)`` and sets both as
      attributes; a subclass that takes other arguments takes them in ``__new__`` as gomea's
      examples do (setting its members there and calling ``super().__new__(cls,
      number_of_variables, value_to_reach)``), or, in pgomea only, in its own ``__init__``,
      calling ``super().__init__(number_of_variables, value_to_reach)``. A subclass whose own
      ``__init__`` does not call the base class's is refused with an ``Error`` (its first two
      arguments would otherwise be read as ``number_of_variables`` and ``value_to_reach``);
    * ``subfunction(i, variables)`` gets the whole genotype, a numpy ``int8`` array of
      ``number_of_variables`` values indexed by variable, of which it reads those of
      ``inputs_to_subfunction(i)`` (the others are 0 here; gomea leaves them undefined);
    * the fitness is the sum of the subfunctions, and it is maximised: gomea's default
      ``objective_function`` and ``constraint_function`` (no constraint). A class that overrides
      ``objective_function``, ``constraint_function``, ``number_of_fitness_buffers`` or
      ``fitness_buffer_index_for_subfunction`` computes another fitness than pgomea's tables
      would, and is refused with an ``Error`` that names the method;
    * ``value_to_reach``, when given, is the run's target: ``pgomea.solve`` stops as soon as the
      fitness reaches it (unless the call gives ``target`` itself), as gomea does.

    Unlike gomea, pgomea calls the methods once per subfunction and value, when the problem is
    built (``problem()``, or the first ``pgomea.solve``): each subfunction is tabulated over the
    2^k values of its k inputs (k at most ``pgomea.MAX_TABLE_ARITY``, 16; a larger one is refused
    with its index and arity) and then runs as a table problem, on every backend, the GPU
    included. The function must therefore depend on the genes of the inputs alone, and be
    deterministic.

    Values: integers are exact. Real values are taken as they are: the library solves them
    rounded to one grid (``resolution``, a keyword argument of the constructor or an attribute,
    when given; else the values' own decimals where that fits 64-bit integers, 0.25 and 1.5 giving
    0.01; else the finest grid that fits, for float noise such as 0.1 + 0.2), and results are in
    the values' own units (``Result.best_fitness`` the sum of the subfunctions' values as
    returned; ``problem().grid`` and ``problem().rounding_bound`` show the grid apart).
    ``value_to_reach`` is the problem's ``best_known`` value (on the same grid).
    """

    number_of_variables: Optional[int]
    value_to_reach: float
    resolution: Optional[float] = None

    def __new__(cls, *args: Any, **kwargs: Any) -> "GrayBox":
        # As gomea's constructor (a Cython __cinit__), __new__ takes (number_of_variables,
        # value_to_reach) from what it is given: the constructor's arguments, or those a
        # subclass's __new__ passes on. An argument that is no number belongs to the subclass.
        self = super().__new__(cls)
        self._tabulated = None
        self._base_init = False
        self._set(args, kwargs)
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Called by Python with the constructor's arguments when the subclass has no __init__:
        # __new__ took them already. Called explicitly by a subclass's __init__ as
        # super().__init__(number_of_variables, value_to_reach=..., resolution=...): they are set.
        self._base_init = True
        if type(self).__init__ is not GrayBox.__init__ and (args or kwargs):
            self._set(args, kwargs)

    def _set(self, args: tuple, kwargs: dict) -> None:
        n = args[0] if args else kwargs.get("number_of_variables")
        vtr = args[1] if len(args) > 1 else kwargs.get("value_to_reach")
        self.number_of_variables = n if isinstance(n, (int, np.integer)) and not isinstance(n, bool) else None
        self.value_to_reach = vtr if isinstance(vtr, numbers.Real) else _NO_VALUE_TO_REACH
        if kwargs.get("resolution") is not None:
            self.resolution = kwargs["resolution"]
        self._tabulated = None

    # The three methods of gomea's gray-box interface.
    def number_of_subfunctions(self) -> int:
        raise NotImplementedError("a GrayBox subclass defines number_of_subfunctions(self)")

    def inputs_to_subfunction(self, subfunction_index: int) -> Any:
        raise NotImplementedError("a GrayBox subclass defines inputs_to_subfunction(self, subfunction_index)")

    def subfunction(self, subfunction_index: int, variables: np.ndarray) -> float:
        raise NotImplementedError("a GrayBox subclass defines subfunction(self, subfunction_index, variables)")

    # gomea's fitness of the subfunctions' sum: one fitness buffer, the objective its value, no
    # constraint. pgomea computes exactly this (from the tables); overriding them is refused.
    def number_of_fitness_buffers(self) -> int:
        return 1

    def fitness_buffer_index_for_subfunction(self, subfunction_index: int) -> int:
        return 0

    def objective_function(self, objective_index: int, fitness_buffers: Any) -> float:
        return fitness_buffers[objective_index]

    def constraint_function(self, fitness_buffers: Any) -> float:
        return 0

    def problem(self) -> Problem:
        """The function tabulated into a table problem (once; ``pgomea.solve`` calls it)."""
        if self._tabulated is None:
            self._tabulated = self._tabulate()
        return self._tabulated

    def _check_meanings(self) -> None:
        """Refuses what pgomea would silently read otherwise than gomea (see the class's doc)."""
        cls = type(self)
        for method in ("objective_function", "constraint_function", "number_of_fitness_buffers",
                       "fitness_buffer_index_for_subfunction"):
            if getattr(cls, method) is not getattr(GrayBox, method):
                raise Error(f"{cls.__name__} overrides {method}: pgomea's fitness is the sum of the subfunctions "
                            "(gomea's default objective_function, with no constraint), computed from tables, so a "
                            f"class with its own {method} cannot run in pgomea; fold it into subfunction() or "
                            "remove it")
        if not getattr(self, "_base_init", False):
            raise Error(f"{cls.__name__}.__init__ does not call GrayBox.__init__: call "
                        "super().__init__(number_of_variables, value_to_reach) from it (else its first two "
                        "arguments are taken as number_of_variables and value_to_reach), or set the members in "
                        "__new__ as gomea's examples do")

    def _tabulate(self) -> Problem:
        self._check_meanings()
        n = self.number_of_variables
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
            raise Error(f"{type(self).__name__}: number_of_variables is {n!r}; give it to the constructor "
                        "(GrayBox(number_of_variables, value_to_reach))")
        n = int(n)
        m = int(self.number_of_subfunctions())
        limit = _pgomea.MAX_TABLE_ARITY
        x = np.zeros(n, dtype=np.int8)
        variables, values = [], []
        for s in range(m):
            inputs = [int(v) for v in self.inputs_to_subfunction(s)]
            k = len(inputs)
            if k > limit:
                raise Error(f"{type(self).__name__}: subfunction {s} has {k} inputs; pgomea tabulates subfunctions of "
                            f"at most {limit} inputs (2^{k} values each would be needed)")
            bad = [v for v in inputs if not 0 <= v < n]
            if bad:
                raise Error(f"{type(self).__name__}: subfunction {s} reads variable {bad[0]}, outside 0..{n - 1}")
            # The inputs' genes in Gray-code order: one gene changes from one call to the next.
            # Entry g of the table is for the genes of g in binary, the first input the most
            # significant bit.
            table = [0] * (1 << k)
            for i in range(1 << k):
                if i:
                    flipped = inputs[k - 1 - ((i & -i).bit_length() - 1)]
                    x[flipped] ^= 1
                g = i ^ (i >> 1)
                value = self.subfunction(s, x)
                if type(value) not in (int, float) and not isinstance(value, numbers.Real):
                    raise Error(f"{type(self).__name__}: subfunction {s} returned {value!r} for the genes "
                                f"{g:0{k}b} of its inputs: expected a number")
                table[g] = value
            x[inputs] = 0
            variables.append(inputs)
            values.append(table)
        vtr = self.value_to_reach
        optimum = None if vtr is None or not math.isfinite(float(vtr)) or float(vtr) >= _NO_VALUE_TO_REACH else vtr
        return tables(n, variables, values, optimum=optimum, resolution=self.resolution,
                      name=type(self).__name__, problem_type="graybox")
