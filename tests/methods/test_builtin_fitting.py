"""Constant fitting and the skeleton normal form shared by the built-in methods."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from srbf.expr import compile_expr, parse, to_infix
from srbf.methods.builtin.enumeration import DEFAULT_BINARY, DEFAULT_UNARY, skeletons_by_size
from srbf.methods.builtin.fitting import ConstantFitter, fvu
from srbf.methods.builtin.skeletons import SLOT_NAME, count_slots, substitute
from srbf.methods.builtin.search import normal_form

V = ["x0", "x1"]


def skeleton(text, variables=V):
    return parse(text, list(variables) + [SLOT_NAME])


def data(n=128, seed=0, low=-2.0, high=2.0, d=2):
    return np.random.default_rng(seed).uniform(low, high, size=(n, d))


def test_fits_exact_constants_to_full_precision():
    X = data()
    y = 2.5 * X[:, 0] * np.sin(X[:, 1]) + 0.7
    outcome = ConstantFitter(X, y, V).fit(skeleton("_c * x0 * sin(x1) + _c"))
    assert outcome.constants == pytest.approx((2.5, 0.7), rel=1e-12)
    assert outcome.fvu < 1e-24
    # the printed formula reads back to the same values, bit for bit
    reread = compile_expr(parse(outcome.text, V), V)(X)
    assert fvu(y, reread) == outcome.fvu


def test_nonlinear_constants_and_caller_start():
    X = data(low=0.1, high=2.0)
    y = 1.7 * np.exp(-0.6 * X[:, 0]) + X[:, 1]
    outcome = ConstantFitter(X, y, V, restarts=1).fit(skeleton("_c * exp(_c * x0) + x1"), init=[1.5, -0.5])
    assert outcome.constants == pytest.approx((1.7, -0.6), rel=1e-10)


def test_skeleton_nan_on_part_of_the_domain():
    X = data(n=200, low=-1.5, high=1.5, d=1)
    y = np.log(X[:, 0] + 2.0)
    fitter = ConstantFitter(X, y, ["x0"], restarts=1)
    # starting at c = 0.5, log(x0 + c) is NaN for a third of the points: the fit walks out of it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outcome = fitter.fit(skeleton("log(x0 + _c)", ["x0"]), init=[0.5])
    assert outcome.constants[0] == pytest.approx(2.0, rel=1e-10)
    assert outcome.fvu < 1e-20
    # NaN everywhere: no exception, no warning, an infinite FVU
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hopeless = ConstantFitter(X, y, ["x0"], restarts=3).fit(skeleton("sqrt(-exp(x0 + _c))", ["x0"]))
    assert hopeless.fvu == math.inf
    assert all(math.isfinite(c) for c in hopeless.constants)


def test_restarts_are_seeded_and_independent_of_order():
    X = data()
    y = np.sin(3.1 * X[:, 0]) + X[:, 1]
    sk = skeleton("sin(_c * x0) + x1")
    first = ConstantFitter(X, y, V, restarts=4, seed=11)
    second = ConstantFitter(X, y, V, restarts=4, seed=11)
    second.fit(skeleton("_c * x0 + _c"))  # another fit first does not change this one
    assert first.fit(sk).constants == second.fit(sk).constants


def test_skeleton_without_constants_is_evaluated():
    X = data()
    y = X[:, 0] * X[:, 1]
    outcome = ConstantFitter(X, y, V).fit(skeleton("x0 * x1"))
    assert outcome.constants == () and outcome.fvu == 0.0 and outcome.text == "x0 * x1"


def test_constant_target_ranks_by_mean_squared_error():
    X = data()
    outcome = ConstantFitter(X, np.full(len(X), 3.0), V).fit(skeleton("_c"))
    assert outcome.text == "3" and outcome.fvu == 0.0


def test_substitute_writes_negative_numbers_with_minus():
    sk = skeleton("x0 + _c * x1 + _c")
    expr = substitute(sk, [-2.5, -1.25])
    assert to_infix(expr) == "x0 - 2.5 * x1 - 1.25"
    X = data()
    np.testing.assert_array_equal(compile_expr(expr, V)(X), X[:, 0] + (-2.5) * X[:, 1] + (-1.25))
    assert count_slots(sk) == 2
    with pytest.raises(ValueError):
        substitute(sk, [1.0])


def test_bad_inputs_are_named():
    X = data()
    with pytest.raises(ValueError, match="shape"):
        ConstantFitter(X, np.zeros(3), V)
    with pytest.raises(ValueError, match="NaN"):
        ConstantFitter(X, np.full(len(X), np.nan), V)
    with pytest.raises(ValueError, match="reserved"):
        ConstantFitter(X, np.zeros(len(X)), ["x0", SLOT_NAME])


@pytest.mark.parametrize(
    "text, expected",
    [
        ("sin(_c) + x0", "_c + x0"),
        ("x0 - _c", "_c + x0"),
        ("x0 / _c", "_c * x0"),
        ("(x1 + _c) + (x0 + _c)", "_c + x0 + x1"),
        ("x1 * (x0 * x1)", "x0 * x1 * x1"),
        ("x0 / x0 + x1", "_c + x1"),
        ("x0 - x0", "_c"),
        ("_c - x0", "_c - x0"),
        ("_c / x0", "_c / x0"),
        ("exp(_c * _c * x0)", "exp(_c * x0)"),
    ],
)
def test_normal_form(text, expected):
    assert to_infix(normal_form(skeleton(text))) == expected


def count_skeletons(n_variables, max_size, *, unary=DEFAULT_UNARY, binary=DEFAULT_BINARY, constants=True):
    """How many distinct skeletons the enumeration yields for each size 1..max_size."""
    variables = [f"x{i}" for i in range(n_variables)]
    sizes = skeletons_by_size(variables, max_size, unary=unary, binary=binary, constants=constants)
    return [len(trees) for _, trees in sizes]


def test_skeleton_counts_match_hand_counts():
    # one variable, sin, + and *:
    #   size 1: x0, C
    #   size 2: sin(x0)                                     (sin(C) is C)
    #   size 3: sin(sin(x0)), x0+x0, C+x0, x0*x0, C*x0     (C+C, C*C are C)
    #   size 4: sin of the five above; x0 + sin(x0), C + sin(x0), x0*sin(x0), C*sin(x0)
    assert count_skeletons(1, 4, unary=["sin"], binary=["add", "mul"]) == [2, 1, 5, 9]
    # two variables, + - * / and no unary operators, size 3:
    #   + and *: {x0,x1,C} unordered pairs without C+C: 5 each
    #   - and /: x0-x1, x1-x0, C-x0, C-x1 (a-C is C+a, a-a is C): 4 each
    assert count_skeletons(2, 3, unary=[], binary=["add", "sub", "mul", "div"]) == [3, 0, 18]
    assert count_skeletons(1, 2, unary=["sin"], binary=["add"], constants=False) == [1, 1]


def test_default_skeleton_counts_are_the_documented_ones():
    assert count_skeletons(1, 5) == [2, 5, 31, 205, 1401]
    assert count_skeletons(2, 5) == [3, 10, 68, 500, 3862]


def _all_trees(leaves, unary, binary, size):
    """Every tree of exactly ``size`` nodes (no normal form): the brute-force reference."""
    from srbf.expr import Call

    if size == 1:
        return list(leaves)
    out = [Call(op, (t,)) for op in unary for t in _all_trees(leaves, unary, binary, size - 1)]
    for i in range(1, size - 1):
        for left in _all_trees(leaves, unary, binary, i):
            for right in _all_trees(leaves, unary, binary, size - 1 - i):
                out.extend(Call(op, (left, right)) for op in binary)
    return out


def test_enumeration_is_complete_and_normal_forms_are_hereditary():
    from srbf.expr import Var
    from srbf.methods.builtin.enumeration import skeletons_by_size
    from srbf.methods.builtin.skeletons import SLOT

    unary, binary = ["sin"], ["add", "sub", "mul", "div"]
    leaves = [SLOT, Var("x0"), Var("x1")]
    brute = set()
    for size in range(1, 6):
        for tree in _all_trees(leaves, unary, binary, size):
            form = normal_form(tree)
            assert normal_form(form) == form  # idempotent
            brute.add(to_infix(form))
    enumerated = {to_infix(t) for _, trees in skeletons_by_size(["x0", "x1"], 5, unary=unary, binary=binary) for t in trees}
    assert enumerated == brute


def test_a_search_with_nothing_finite_returns_the_fitted_constant():
    from srbf.methods.builtin.search import Search

    X = np.linspace(-1.0, 1.0, 64).reshape(-1, 1)
    y = X[:, 0] ** 2 + 0.5
    search = Search(ConstantFitter(X, y, ["x0"], restarts=1), None)
    search.consider(normal_form(skeleton("_c * log(x0) * x0", ["x0"])))  # NaN for every x0 < 0
    result = search.result()
    assert "x0" not in result["expression"]
    assert float(result["expression"]) == pytest.approx(y.mean(), rel=1e-6)
    assert result["support_fvu"] == pytest.approx(1.0)
