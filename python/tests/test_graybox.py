"""GrayBox: classes written as PyPI gomea 1.1's documentation writes them run in pgomea with
only the base class changed, tabulated once and solved to their known optima."""

import importlib.util
import itertools

import numpy as np
import pytest

import pgomea
from pgomea import Error


# As gomea's demo (demos/gbo_discrete) writes a gray-box function: members set in __new__, the
# whole genotype passed to subfunction, inputs as a range.
class CustomTrapFunction(pgomea.GrayBox):
    def __new__(self, number_of_variables, k, value_to_reach):
        assert number_of_variables % k == 0
        self.k = k
        return super().__new__(self, number_of_variables, value_to_reach)

    def number_of_subfunctions(self):
        return self.number_of_variables // self.k

    def inputs_to_subfunction(self, subfunction_index):
        return range(self.k * subfunction_index, self.k * subfunction_index + self.k)

    def subfunction(self, subfunction_index, variables):
        trap_variables = variables[self.inputs_to_subfunction(subfunction_index)]
        unitation = np.sum(trap_variables)
        if unitation == self.k:
            return unitation
        else:
            return self.k - unitation - 1


# The same written with an ordinary __init__, shuffled blocks and numpy index arrays.
class ShuffledTraps(pgomea.GrayBox):
    def __init__(self, blocks, k, seed):
        super().__init__(blocks * k, value_to_reach=blocks * k)
        self.k = k
        self.order = np.random.default_rng(seed).permutation(blocks * k)

    def number_of_subfunctions(self):
        return self.number_of_variables // self.k

    def inputs_to_subfunction(self, subfunction_index):
        return self.order[self.k * subfunction_index:self.k * (subfunction_index + 1)].astype(np.int32)

    def subfunction(self, subfunction_index, variables):
        u = int(variables[self.inputs_to_subfunction(subfunction_index)].sum())
        return float(self.k if u == self.k else self.k - 1 - u)


# An adjacent NK landscape in a Python function: window i reads variables i..i+K-1.
class NKLandscape(pgomea.GrayBox):
    def __init__(self, n, k, seed):
        super().__init__(n)
        self.k = k
        self.tables = np.random.default_rng(seed).integers(0, 1000, size=(n - k + 1, 1 << k))

    def number_of_subfunctions(self):
        return self.number_of_variables - self.k + 1

    def inputs_to_subfunction(self, subfunction_index):
        return list(range(subfunction_index, subfunction_index + self.k))

    def subfunction(self, subfunction_index, variables):
        key = 0
        for v in self.inputs_to_subfunction(subfunction_index):
            key = 2 * key + int(variables[v])
        return int(self.tables[subfunction_index][key])

    def optimum(self):
        return nk_optimum(self.k, self.tables)


def nk_optimum(k, tables):
    """The optimum of adjacent windows by dynamic programming: best[s] = the best sum of the
    windows so far whose last k - 1 genes are s."""
    best = {s: 0 for s in range(1 << (k - 1))}
    for table in tables:
        nxt = {}
        for s, v in best.items():
            for g in (0, 1):
                key = 2 * s + g
                t = key & ((1 << (k - 1)) - 1)
                nxt[t] = max(nxt.get(t, -1), v + int(table[key]))
        best = nxt
    return max(best.values())


def test_a_gomea_style_trap_class_reaches_its_optimum():
    f = CustomTrapFunction(40, k=5, value_to_reach=40)
    assert (f.number_of_variables, f.value_to_reach, f.k) == (40, 40, 5)
    problem = f.problem()
    assert problem is f.problem(), "tabulated once"
    assert (problem.variables, problem.subfunctions, problem.best_known) == (40, 8, 40)
    assert problem.evaluate(np.ones(40)) == 40 and problem.evaluate(np.zeros(40)) == 32
    for algorithm in ("serial", "parallel"):
        r = pgomea.solve(f, algorithm=algorithm, target="best-known", time_limit=60)
        assert r.stop_reason == "target reached" and r.best_fitness == 40
        assert np.all(r.solution == 1)


def test_shuffled_traps_with_an_init_and_float_values_reach_all_ones():
    f = ShuffledTraps(blocks=30, k=4, seed=3)
    r = pgomea.solve(f, target="best-known", time_limit=60)
    assert r.best_fitness == 120 and isinstance(r.best_fitness, int) and np.all(r.solution == 1)
    assert f.problem().exact  # float values that are integers stay exact


def test_an_nk_landscape_in_a_python_function_reaches_its_dynamic_programming_optimum():
    f = NKLandscape(60, 4, seed=11)
    optimum = f.optimum()
    # Tabulation agrees with the function on random genotypes.
    problem = f.problem()
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.integers(0, 2, 60).astype(np.int8)
        assert problem.evaluate(x) == sum(f.subfunction(i, x) for i in range(f.number_of_subfunctions()))
    r = pgomea.solve(f, target=optimum, time_limit=60)
    assert r.best_fitness == optimum and r.stop_reason == "target reached"


class Wide(pgomea.GrayBox):
    def __init__(self, arity):
        super().__init__(20)
        self.arity = arity

    def number_of_subfunctions(self):
        return 3

    def inputs_to_subfunction(self, i):
        return range(i, i + (self.arity if i == 2 else 2))

    def subfunction(self, i, x):
        return int(x[list(self.inputs_to_subfunction(i))].sum())


class OneMax(pgomea.GrayBox):
    def number_of_subfunctions(self):
        return self.number_of_variables

    def inputs_to_subfunction(self, i):
        return [i]

    def subfunction(self, i, x):
        return int(x[i])


class Clauses(OneMax):
    # A second argument that is no number (gomea's examples set such members in __new__).
    def __new__(self, number_of_variables, clauses, value_to_reach):
        self.clauses = clauses
        return super().__new__(self, number_of_variables, value_to_reach)


class Sized(OneMax):
    def __init__(self, size, seed):
        self.seed = seed
        super().__init__(size)


def test_every_way_of_constructing_sets_the_variables_and_the_value_to_reach():
    assert (OneMax(7).number_of_variables, OneMax(7).value_to_reach) == (7, 1e308)
    assert OneMax(7, 5).value_to_reach == 5 and OneMax(7, value_to_reach=6).value_to_reach == 6
    c = Clauses(9, [[1, -2]], 9)
    assert (c.number_of_variables, c.value_to_reach, c.clauses) == (9, 9, [[1, -2]])
    s = Sized(12, 3)
    # __new__ saw (12, 3) as gomea's constructor would; the explicit super().__init__ decides.
    assert (s.number_of_variables, s.value_to_reach, s.seed) == (12, 1e308, 3)
    assert s.problem().best_known is None and c.problem().best_known == 9
    assert pgomea.solve(c, target="best-known").best_fitness == 9


def test_a_subfunction_of_arity_17_is_refused_with_its_index_and_arity():
    assert pgomea.MAX_TABLE_ARITY == 16
    assert Wide(16).problem().subfunctions == 3
    with pytest.raises(Error, match="subfunction 2 has 17 inputs"):
        Wide(17).problem()


class Real(pgomea.GrayBox):
    def __init__(self, values, **kwargs):
        super().__init__(len(values), **kwargs)
        self.values = values

    def number_of_subfunctions(self):
        return len(self.values)

    def inputs_to_subfunction(self, i):
        return [i]

    def subfunction(self, i, x):
        return self.values[i] if x[i] else 0.0


def test_real_values_are_taken_as_given_on_a_grid_found_or_given():
    f = Real([0.25, -1.5, 0.75], value_to_reach=1.0)
    p = f.problem()
    assert str(p.grid) == "0.01" and p.best_known == 1.0
    r = pgomea.solve(f)  # the value to reach is the target
    assert r.best_fitness == 1.0 and r.solution.tolist() == [1, 0, 1] and r.reached_target
    assert str(Real([0.25, 0.5], resolution=0.25).problem().grid) == "0.25"
    # A given grid is rounded to; the fitness is the values' own.
    q = Real([0.25, 0.3], resolution=0.25).problem()
    assert q.evaluate_on_grid([1, 1]) == 2 and q.evaluate([1, 1]) == 0.55 and q.rounding_bound == pytest.approx(0.05)
    # Float noise beside 1000: the finest grid that fits, and the sum as given.
    noisy = Real([0.1 + 0.2, 1000.0])
    r = pgomea.solve(noisy, max_evaluations=1e3)
    assert r.best_fitness == 0.1 + 0.2 + 1000.0 and 0 < noisy.problem().rounding_bound < 1e-15
    with pytest.raises(Error, match="subfunction 1, entry 1: NaN"):
        Real([1.0, float("nan")]).problem()


class Broken(pgomea.GrayBox):
    def number_of_subfunctions(self):
        return 2

    def inputs_to_subfunction(self, i):
        return [0, 5] if i == 0 else [1]

    def subfunction(self, i, x):
        return None if x[i] else 1


def test_broken_classes_are_refused_with_what_is_wrong():
    with pytest.raises(Error, match="number_of_variables is None"):
        Broken().problem()
    with pytest.raises(Error, match="subfunction 0 reads variable 5, outside 0..2"):
        Broken(3).problem()
    with pytest.raises(Error, match=r"subfunction 0 returned None for the genes 11 of its inputs"):
        Broken(6).problem()
    with pytest.raises(NotImplementedError):
        pgomea.GrayBox(3).problem()


def nk_class(base):
    """An adjacent NK landscape written once, as gomea's documentation writes a gray-box class,
    on the base class given."""

    class NK(base):
        def __new__(self, number_of_variables, k, tables, value_to_reach=1e308):
            self.k = k
            self.tables = tables
            return super().__new__(self, number_of_variables, value_to_reach)

        def number_of_subfunctions(self):
            return self.number_of_variables - self.k + 1

        def inputs_to_subfunction(self, subfunction_index):
            return range(subfunction_index, subfunction_index + self.k)

        def subfunction(self, subfunction_index, variables):
            key = 0
            for v in variables[self.inputs_to_subfunction(subfunction_index)]:
                key = 2 * key + int(v)
            return float(self.tables[subfunction_index][key])

    return NK


@pytest.mark.skipif(importlib.util.find_spec("gomea") is None, reason="PyPI gomea is not installed")
def test_gomea_and_pgomea_agree_on_the_same_class():
    """One class, on gomea's base class and on pgomea's: gomea's best solutions and values (of
    short runs that stop before the optimum, and of one that reaches it) are pgomea's fitness of
    those solutions: the same variables, the same sum, both maximise."""
    import gomea

    n, k = 30, 4
    tables = np.random.default_rng(5).integers(0, 100, size=(n - k + 1, 1 << k))
    mine = nk_class(pgomea.GrayBox)(n, k, tables).problem()
    optimum = nk_optimum(k, tables)
    for budget in (200, 1000, 100000):
        # The longest run stops at the optimum (gomea's value to reach).
        theirs = nk_class(gomea.fitness.GBOFitnessFunctionDiscrete)(n, k, tables, float(optimum))
        linkage = gomea.linkage.StaticLinkageTree()
        final = gomea.DiscreteGOMEA(fitness=theirs, linkage_model=linkage, max_number_of_evaluations=budget,
                                    random_seed=budget).run().getFinalStatistics()
        solution = [int(c) for c in final["best_solution"].strip("[]")]
        assert mine.evaluate(solution) == final["best_obj_val"] <= optimum
    assert final["best_obj_val"] == optimum
    assert pgomea.solve(mine, target=optimum, time_limit=60).best_fitness == optimum


# ---------------------------------------------------------------------------------------------
# gomea's meanings, kept or refused aloud


class OwnObjective(OneMax):
    def objective_function(self, objective_index, fitness_buffers):
        return -fitness_buffers[objective_index]


class OwnConstraint(OneMax):
    def constraint_function(self, fitness_buffers):
        return 1.0


class NoBaseInit(pgomea.GrayBox):
    def __init__(self, n, k):
        self.k = k

    def number_of_subfunctions(self):
        return self.number_of_variables // self.k

    def inputs_to_subfunction(self, i):
        return range(self.k * i, self.k * i + self.k)

    def subfunction(self, i, x):
        return int(x[self.inputs_to_subfunction(i)].sum())


def test_an_own_objective_or_constraint_function_is_refused_by_name():
    with pytest.raises(Error, match="OwnObjective overrides objective_function"):
        pgomea.solve(OwnObjective(8), max_evaluations=100)
    with pytest.raises(Error, match="OwnConstraint overrides constraint_function"):
        OwnConstraint(8).problem()


def test_an_init_that_does_not_call_the_base_class_is_refused():
    f = NoBaseInit(500, 4)
    with pytest.raises(Error, match=r"NoBaseInit.__init__ does not call GrayBox.__init__"):
        pgomea.solve(f, max_evaluations=100)


def test_the_value_to_reach_ends_the_run_as_in_gomea():
    f = CustomTrapFunction(40, k=5, value_to_reach=40)
    r = pgomea.solve(f, time_limit=60)
    assert r.reached_target and r.best_fitness == 40 and r.time_s < 30
    # A value never reached (OneMax of 8 to 100) still ends at the default cap: the run is
    # stopped here at its first improvement to read its configuration.
    def stop(*_):
        raise StopIteration

    with pytest.raises(StopIteration) as caught:
        pgomea.solve(OneMax(8, 100), on_improvement=stop)
    assert caught.value.result.config["time_limit"] == pgomea._pgomea.DEFAULT_TIME_LIMIT_S == 60
    # A target given in the call wins over it.
    r = pgomea.solve(CustomTrapFunction(40, k=5, value_to_reach=40), target=35, time_limit=60)
    assert r.reached_target and r.best_fitness >= 35


# The problems PyPI gomea 1.1 ships (gomea.fitness.OneMaxFunction, DeceptiveTrapFunction; its
# demos' CustomTrapFunction above), written as gray-box classes: they are compiled into gomea and
# cannot be subclassed from Python, so these are their equivalents, checked against gomea below.
class OneMaxFunction(pgomea.GrayBox):
    def __new__(self, number_of_variables, value_to_reach=None):
        return super().__new__(self, number_of_variables,
                               number_of_variables if value_to_reach is None else value_to_reach)

    def number_of_subfunctions(self):
        return self.number_of_variables

    def inputs_to_subfunction(self, subfunction_index):
        return [subfunction_index]

    def subfunction(self, subfunction_index, variables):
        return variables[subfunction_index]


class DeceptiveTrapFunction(pgomea.GrayBox):
    def __new__(self, number_of_variables, trap_size, value_to_reach=None):
        self.trap_size = trap_size
        return super().__new__(self, number_of_variables,
                               number_of_variables if value_to_reach is None else value_to_reach)

    def number_of_subfunctions(self):
        return self.number_of_variables // self.trap_size

    def inputs_to_subfunction(self, subfunction_index):
        return range(self.trap_size * subfunction_index, self.trap_size * (subfunction_index + 1))

    def subfunction(self, subfunction_index, variables):
        u = int(np.sum(variables[self.inputs_to_subfunction(subfunction_index)]))
        return self.trap_size if u == self.trap_size else self.trap_size - 1 - u


# gomea's demos/simple_discrete: the trap with no value to reach.
class SimpleTrapFunction(pgomea.GrayBox):
    def __new__(self, number_of_variables, k):
        assert number_of_variables % k == 0
        self.k = k
        return super().__new__(self, number_of_variables)

    number_of_subfunctions = CustomTrapFunction.number_of_subfunctions
    inputs_to_subfunction = CustomTrapFunction.inputs_to_subfunction
    subfunction = CustomTrapFunction.subfunction


@pytest.mark.parametrize("make", [lambda: OneMaxFunction(60), lambda: DeceptiveTrapFunction(60, 5),
                                  lambda: CustomTrapFunction(20, k=5, value_to_reach=20)],
                         ids=["OneMaxFunction", "DeceptiveTrapFunction", "CustomTrapFunction"])
def test_gomeas_own_problems_reach_their_value_to_reach(make):
    f = make()
    r = pgomea.solve(f, time_limit=60)
    assert r.reached_target and r.best_fitness == f.value_to_reach and np.all(r.solution == 1)


def test_gomeas_simple_demo_without_a_value_to_reach_stops_by_the_default_rule():
    f = SimpleTrapFunction(20, k=5)
    assert f.problem().best_known is None
    r = pgomea.solve(f, max_evaluations=1e5)
    assert r.best_fitness == 20 and not r.reached_target


@pytest.mark.skipif(importlib.util.find_spec("gomea") is None, reason="PyPI gomea is not installed")
@pytest.mark.parametrize("pair", ["OneMaxFunction", "DeceptiveTrapFunction"])
def test_the_equivalents_agree_with_gomeas_compiled_problems(pair):
    """gomea's best solutions of short runs (before the optimum) and their values are the
    equivalents' fitness of those solutions."""
    import gomea

    n, k = 30, 5
    theirs = {"OneMaxFunction": lambda: gomea.fitness.OneMaxFunction(n),
              "DeceptiveTrapFunction": lambda: gomea.fitness.DeceptiveTrapFunction(n, k)}[pair]
    mine = {"OneMaxFunction": lambda: OneMaxFunction(n),
            "DeceptiveTrapFunction": lambda: DeceptiveTrapFunction(n, k)}[pair]().problem()
    seen = set()
    for budget in (30, 60, 200, 1000):
        # (gomea refuses the linkage model when it is made after the problem.)
        linkage = gomea.linkage.StaticLinkageTree()
        final = gomea.DiscreteGOMEA(fitness=theirs(), linkage_model=linkage, max_number_of_evaluations=budget,
                                    random_seed=budget).run().getFinalStatistics()
        solution = [int(c) for c in final["best_solution"].strip("[]")]
        assert mine.evaluate(solution) == final["best_obj_val"]
        seen.add(final["best_obj_val"])
    # OneMax is solved at once; the traps' runs stop at different values below the optimum.
    assert len(seen) > 1 or pair == "OneMaxFunction"
