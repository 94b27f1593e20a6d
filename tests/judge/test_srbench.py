"""SRBench's symbolic solution: the SymPy rule, the worker pool, its work limit and its time backstop."""

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.judge import Judge
from srbf.judge.srbench import SymbolicPool, symbolic_solution, to_sympy

pytestmark = pytest.mark.slow

V = ["x1", "x2"]


def P(text):
    return parse(text, V)


def test_trees_convert_without_strings():
    import sympy

    x1, x2 = sympy.Symbol("x1"), sympy.Symbol("x2")
    assert to_sympy(P("2.5*x1*sin(x2) - x1/x2")) == sympy.Float(2.5) * x1 * sympy.sin(x2) - x1 / x2
    assert to_sympy(P("x1**2.0")) == x1**2  # integral numbers become SymPy integers
    assert to_sympy(P("sqrt(x1) + log10(x2) + pi")) == sympy.sqrt(x1) + sympy.log(x2, 10) + sympy.pi


@pytest.mark.parametrize(
    "truth, prediction, expected",
    [
        ("2.5*x1*sin(x2)", "2.5*x1*sin(x2)", True),
        ("2.5*x1*sin(x2)", "1.01*(2.5*x1*sin(x2))", True),  # a constant ratio counts in SRBench
        ("2.5*x1*sin(x2)", "2.5*x1*sin(x2) + 3", True),  # and so does a constant difference
        ("x1**2", "x1*x1", True),
        ("x1**2", "x1**3", False),
        ("x1", "0*x1", False),  # a zero prediction is never a solution
        ("sin(x1)**2 + cos(x1)**2 + x2", "x2 + 1", True),  # SymPy simplifies the difference
    ],
)
def test_symbolic_solution_rule(truth, prediction, expected):
    assert symbolic_solution(P(truth), P(prediction)) is expected


@pytest.fixture(scope="module")
def pool():
    pool = SymbolicPool(workers=1)  # the default 60 s backstop: only the work limit decides, even on a loaded machine
    yield pool
    pool.close()


def test_pool_and_time_limit(pool):
    outcomes = pool.run([(P("x1**2"), P("x1*x1")), (P("x1**2"), P("x1**3"))])
    assert [o.solution for o in outcomes] == [True, False]
    assert not any(o.undecided for o in outcomes)
    # a check that needs SymPy's simplify takes far longer than 1 ms: it is killed and undecided
    (slow,) = pool.run([(P("x1**2 + sin(x2)"), P("x1**3 + cos(x2)"))], time_limit=0.001)
    assert slow.solution is None and slow.undecided and "backstop" in slow.note
    # the replacement worker keeps serving
    (again,) = pool.run([(P("x1"), P("x1"))])
    assert again.solution is True


def test_judge_records_symbolic_solutions(pool):
    rng = np.random.default_rng(0)
    f = compile_expr(P("2.5*x1*sin(x2)"), V)
    X, Xv = rng.uniform(1, 3, (64, 2)), rng.uniform(1, 3, (64, 2))
    data = {"X_support": X, "y_support": f(X), "X_validation": Xv, "y_validation": f(Xv), "variables": V}
    judge = Judge("2.5*x1*sin(x2)", data, srbench=True, pool=pool)
    exact, scaled, wrong, broken = judge.score_many(["2.5*x1*sin(x2)", "1.01*(2.5*x1*sin(x2))", "x1 + x2", "x1 +"])
    assert exact["srbench_symbolic_solution"] == 1 and scaled["srbench_symbolic_solution"] == 1
    assert scaled["srr_all"] == 0  # SRBench is more lenient than srbf's own recovery rates
    assert wrong["srbench_symbolic_solution"] == 0 and "R^2" in wrong["srbench_symbolic_note"]
    assert broken["srbench_symbolic_solution"] == 0 and broken["success"] == 0
    undecided = Judge("2.5*x1*sin(x2)", data, srbench=True, pool=pool, work_limit=100)
    (r,) = undecided.score_many(["2.5*x1*sin(x2) + 0.001*x1**2"])
    assert r["srbench_symbolic_solution"] is None and r["srbench_symbolic_undecided"] is True
    assert r["srbench_symbolic_note"] == "work limit of 100 calls reached"


def test_the_work_limit_decides_the_same_way_every_time(pool):
    """The check of x1**2 against x1**3 goes through simplify, some 84,000 Python calls (measured
    with sys.settrace; the count varies by well under 1% between processes): under a limit far
    below that it is undecided, far above it decided, on every repetition, in a fresh worker too,
    whatever the machine's load (the wall-clock backstop is set out of the way)."""
    pair = (P("x1**2"), P("x1**3"))
    low = [o.note for o in pool.run([pair] * 3, work_limit=2_000, time_limit=600)]
    assert low == ["work limit of 2,000 calls reached"] * 3
    high = pool.run([pair] * 3, work_limit=1_000_000, time_limit=600)
    assert [(o.solution, o.undecided) for o in high] == [(False, False)] * 3
    fresh = SymbolicPool(workers=1, work_limit=50_000, time_limit=600)
    try:
        (again,) = fresh.run([pair])
    finally:
        fresh.close()
    assert again.undecided and again.note == "work limit of 50,000 calls reached"


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "100"])
def test_a_work_limit_must_be_a_positive_count(bad):
    with pytest.raises(ValueError, match="work_limit must be a positive number of calls"):
        SymbolicPool(workers=1, work_limit=bad)
