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
      attributes; a subclass may take more arguments (in its own ``__init__``, or in ``__new__``
      as gomea's examples do, calling ``super().__new__(cls, number_of_variables,
      value_to_reach)``);
    * ``subfunction(i, variables)`` gets the whole genotype, a numpy ``int8`` array of
      ``number_of_variables`` values indexed by variable, of which it reads those of
      ``inputs_to_subfunction(i)`` (the others are 0 here; gomea leaves them undefined);
    * the fitness is the sum of the subfunctions, and it is maximised.

    Unlike gomea, pgomea calls the methods once per subfunction and value, when the problem is
    built (``problem()``, or the first ``pgomea.solve``): each subfunction is tabulated over the
    2^k values of its k inputs (k at most ``pgomea.MAX_TABLE_ARITY``, 16; a larger one is refused
    with its index and arity) and then runs as a table problem, on every backend, the GPU
    included. The function must therefore depend on the genes of the inputs alone, and be
    deterministic.

    Values: integers are exact. Real values are put on one grid of integers: ``resolution``
    (a keyword argument of the constructor, or an attribute), or when it is None the grid of the
    values' own decimals (0.25 and 1.5 give 0.01); values whose decimals need a grid too fine
    for 64-bit integers (float noise such as 0.1 + 0.2) are refused with a resolution to give.
    ``value_to_reach``, when given, is the problem's ``best_known`` value:
    ``pgomea.solve(..., target="best-known")`` stops there, as gomea does.
    """

    number_of_variables: Optional[int]
    value_to_reach: float
    resolution: Optional[float] = None

    def __new__(cls, *args: Any, **kwargs: Any) -> "GrayBox":
        self = super().__new__(cls)
        self._tabulated = None
        self._set(*args, **kwargs)
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # A subclass's __init__ calling super().__init__(n, value_to_reach=...) sets them again;
        # without arguments (gomea's __new__ style) the values __new__ took stay.
        if args or kwargs:
            self._set(*args, **kwargs)

    def _set(self, number_of_variables: Any = None, value_to_reach: Any = None, *_: Any,
             resolution: Any = None, **__: Any) -> None:
        # gomea's constructor takes (number_of_variables, value_to_reach=1e308) and ignores the
        # rest, which belongs to the subclass; what is not given keeps its value.
        if number_of_variables is not None or not hasattr(self, "number_of_variables"):
            self.number_of_variables = number_of_variables
        if value_to_reach is not None or not hasattr(self, "value_to_reach"):
            self.value_to_reach = _NO_VALUE_TO_REACH if value_to_reach is None else value_to_reach
        if resolution is not None:
            self.resolution = resolution
        self._tabulated = None

    # The three methods of gomea's gray-box interface.
    def number_of_subfunctions(self) -> int:
        raise NotImplementedError("a GrayBox subclass defines number_of_subfunctions(self)")

    def inputs_to_subfunction(self, subfunction_index: int) -> Any:
        raise NotImplementedError("a GrayBox subclass defines inputs_to_subfunction(self, subfunction_index)")

    def subfunction(self, subfunction_index: int, variables: np.ndarray) -> float:
        raise NotImplementedError("a GrayBox subclass defines subfunction(self, subfunction_index, variables)")

    def problem(self) -> Problem:
        """The function tabulated into a table problem (once; ``pgomea.solve`` calls it)."""
        if self._tabulated is None:
            self._tabulated = self._tabulate()
        return self._tabulated

    def _tabulate(self) -> Problem:
        n = self.number_of_variables
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
            raise Error(f"{type(self).__name__}: number_of_variables is {n!r}; give it to the constructor "
                        "(GrayBox(number_of_variables, value_to_reach))")
        n = int(n)
        m = int(self.number_of_subfunctions())
        limit = _pgomea.MAX_TABLE_ARITY
        x = np.zeros(n, dtype=np.int8)
        variables, values = [], []
        patterns = {}
        for s in range(m):
            inputs = [int(v) for v in self.inputs_to_subfunction(s)]
            k = len(inputs)
            if k > limit:
                raise Error(f"{type(self).__name__}: subfunction {s} has {k} inputs; pgomea tabulates subfunctions of "
                            f"at most {limit} inputs (2^{k} values each would be needed)")
            bad = [v for v in inputs if not 0 <= v < n]
            if bad:
                raise Error(f"{type(self).__name__}: subfunction {s} reads variable {bad[0]}, outside 0..{n - 1}")
            if k not in patterns:
                # Row i: the genes of index i, the first input the most significant bit.
                i = np.arange(1 << k)
                patterns[k] = ((i[:, None] >> np.arange(k - 1, -1, -1)) & 1).astype(np.int8)
            table = []
            for genes in patterns[k]:
                x[inputs] = genes
                value = self.subfunction(s, x)
                if not isinstance(value, numbers.Real):
                    raise Error(f"{type(self).__name__}: subfunction {s} returned {value!r} for the genes "
                                f"{''.join(map(str, genes))} of its inputs: expected a number")
                table.append(value)
            x[inputs] = 0
            variables.append(inputs)
            values.append(table)
        vtr = self.value_to_reach
        optimum = None if vtr is None or not math.isfinite(float(vtr)) or float(vtr) >= _NO_VALUE_TO_REACH else vtr
        return tables(n, variables, values, optimum=optimum, resolution=self.resolution,
                      name=type(self).__name__, problem_type="graybox")
