"""Numeric equivalence in 50-digit arithmetic."""

import numpy as np
import pytest

from srbf.expr import parse
from srbf.judge.equivalence import evaluate_mp, numerically_equivalent

V = ["x", "y"]
X = np.random.default_rng(0).uniform(1.0, 3.0, size=(40, 2))


@pytest.mark.parametrize(
    "truth, prediction, expected",
    [
        ("sin(x)**2 + cos(x)**2 + y", "y + 1", True),  # an identity no canonical form applies
        ("x*x", "x**2", True),
        ("exp(x)/exp(y)", "exp(x - y)", True),
        ("cbrt(x - 5)", "-cbrt(5 - x)", True),  # the real cube root, as NumPy computes it
        ("x*y", "x*y*(1 + 1e-13)", True),  # within 1e-12
        ("x*y", "x*y*(1 + 1e-11)", False),
        ("sin(x)", "sin(x) + 1e-8", False),  # values of order one: an offset of 1e-8 is a miss
        ("x + y", "x + y + 1e-8", False),
        ("x", "log(x - 2)", False),  # the prediction is undefined where the truth is not
        ("sqrt(x - y)", "(x - y)**0.5", True),  # box points outside the truth's domain are skipped
    ],
)
def test_equivalence(truth, prediction, expected):
    assert numerically_equivalent(parse(truth, V), parse(prediction, V), V, X, scale=1.0) is expected


def test_truth_undefined_everywhere_is_undecided():
    assert numerically_equivalent(parse("log(-x)", V), parse("x", V), V, X, scale=1.0) is None


def test_evaluation_uses_fifty_digits():
    value = evaluate_mp(parse("(1 + x) - 1", V), {"x": 1e-30, "y": 0.0})
    assert abs(value - 1e-30) < 1e-45  # float64 would give 0
    assert evaluate_mp(parse("sqrt(x)", V), {"x": -1.0, "y": 0.0}) is None
    assert evaluate_mp(parse("1/x", V), {"x": 0.0, "y": 0.0}) is None
