"""Tolerant structural recovery: the pruning steps, worked by hand, and the *_pruned rates."""

import math

import numpy as np
import pytest

from srbf.expr import compile_expr, parse
from srbf.expr.tree import Call, Num, Var
from srbf.judge import Judge
from srbf.judge.pruning import prune, snap

V = ["x1", "x2"]


def make_data(formula, variables=V, low=1.0, high=3.0, n=64, truth_of_data=None):
    rng = np.random.default_rng(0)
    f = compile_expr(parse(truth_of_data or formula, variables), variables)
    X, Xv = rng.uniform(low, high, (n, len(variables))), rng.uniform(low, high, (n, len(variables)))
    return {"X_support": X, "y_support": f(X), "X_validation": Xv, "y_validation": f(Xv), "variables": variables}


def rates(truth, prediction, **data_options):
    r = Judge(truth, make_data(truth, **data_options)).score(prediction)
    keys = ("nrr_validation", "srr_structure", "srr_exponents", "srr_structure_pruned", "srr_exponents_pruned")
    return tuple(r[k] for k in keys)


@pytest.mark.parametrize(
    "value, expected",
    [
        (1.00000055, 1.0),  # |1.00000055 - 1| = 5.5e-7 <= 1e-6
        (-0.9999995, -1.0),
        (2.9999985, 3.0),  # 1.5e-6 away, 5e-7 relative to 3
        (0.33333345, 1 / 3),  # 1.2e-7 away, 3.5e-7 relative
        (0.5000004, 0.5),  # 4e-7 away: 8e-7 relative
        (7 / 12 + 5e-7, 7 / 12),  # 8.6e-7 relative: the denominator 12 is allowed
        (1.0000011, 1.0000011),  # 1.1e-6 relative: too far
        (1.0001, 1.0001),  # a real near-miss
        (1 / 13, 1 / 13),  # denominator 13: not a simple fraction
        (1e-9, 1e-9),  # near zero: no fraction p/q with p != 0 is close; dropping handles tiny terms
        (0.0, 0.0),
        (12.000006, 12.0),  # 5e-7 relative to 12
    ],
)
def test_snap_to_integers_and_simple_fractions(value, expected):
    assert snap(value) == expected


def test_snap_leaves_non_finite_values():
    assert math.isnan(snap(math.nan)) and snap(math.inf) == math.inf


def test_snap_prefers_the_smallest_denominator():
    # 0.5 is 1/2, 2/4, 3/6, ...: it stays 0.5 (p/q computed from q = 2)
    assert snap(0.50000001) == 0.5 and snap(1.9999999) == 2.0


def test_prune_drops_a_negligible_offset_and_snaps_the_weight():
    X = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])
    # canonical 1e-9 + 1.00000055*x1*x2: values 1, 6, 6 (+1e-9, times the weight); spread (std) 2.357;
    # dropping the offset moves every point by 1e-9 < 2.357e-6
    canonical = Call("add", (Num(1e-9), Call("mul", (Num(1.00000055), Var("x1"), Var("x2")))))
    values = compile_expr(canonical, V)(X)
    assert prune(canonical, V, X, values) == Call("mul", (Num(1.0), Var("x1"), Var("x2")))


def test_prune_keeps_a_term_above_the_threshold():
    X = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])
    # x1*x2 + 1e-5*x1: the small term moves the values by up to 3e-5 > 2.357e-6
    canonical = Call("add", (Call("mul", (Var("x1"), Var("x2"))), Call("mul", (Num(1e-5), Var("x1")))))
    values = compile_expr(canonical, V)(X)
    assert prune(canonical, V, X, values) is None  # nothing to change


def test_prune_bounds_the_removals_together():
    # x1 = 1, x2 = 1, 4, 7: x1*x2 has the spread (std) sqrt(6) = 2.449, the threshold is 2.449e-6.
    # The terms 1.5e-6 and 1.5e-6*x1 (1.5e-6 everywhere) each move the values by 1.5e-6, both
    # together by 3e-6: the first (in prefix order) goes, the second stays
    X = np.array([[1.0, 1.0], [1.0, 4.0], [1.0, 7.0]])
    small = Num(1.5e-6)
    body = Call("mul", (Var("x1"), Var("x2")))
    canonical = Call("add", (small, body, Call("mul", (small, Var("x1")))))
    values = compile_expr(canonical, V)(X)
    assert float(np.std(values)) == pytest.approx(math.sqrt(6))
    assert prune(canonical, V, X, values) == Call("add", (body, Call("mul", (small, Var("x1")))))


def test_operon_like_prediction_is_a_tolerant_match_only():
    # truth x1*x2 on [1, 3]^2; the prediction's offset 1e-9 is far below 1e-6 of its spread (about 1.6)
    assert rates("x1*x2", "1e-9 + 1.00000055*x1*x2") == (1, 0, 0, 1, 1)


@pytest.mark.parametrize(
    "truth, prediction",
    [
        ("x1*x2", "1.0001*x1*x2"),  # a weight 1e-4 from 1: recovered numerically, not float noise
        ("x1*x2", "x1*x2 + 1e-5*x1"),  # a small but real term: 3e-5 > 1e-6 of the spread
        ("x1*x2", "x1*x2 + 0.001"),  # an offset that also fails numeric recovery
        ("sin(x1)*x2", "cos(x1)*x2 + 1e-12"),  # another function stays another function
        ("x1/x2", "x2/x1 + 1e-12"),  # swapped variables in a non-symmetric formula
        ("exp(2*x1)", "exp(2.0000001*x1)"),  # the number inside exp is masked anyway: strict 1 already
    ],
)
def test_near_misses_are_not_pruned_into_a_match(truth, prediction):
    nrr, structure, exponents, structure_pruned, exponents_pruned = rates(truth, prediction)
    assert (structure_pruned, exponents_pruned) == (structure, exponents)


def test_pruned_rates_never_fall_below_the_strict_ones():
    assert rates("x1**2*x2", "x1**3*x2") == (0, 1, 0, 1, 0)  # structure matches by design, no recovery
    assert rates("x1**2*x2", "x1**2.0000001*x2") == (1, 1, 0, 1, 1)  # a fitted exponent snaps to 2


def test_float_noise_inside_functions_and_divisions():
    assert rates("sin(x1)*x2", "sin(1.0000001*x1 + 1e-10)*x2 + 1e-12*exp(x1)") == (1, 0, 0, 1, 1)
    assert rates("x1/x2", "0.99999999*x1/(x2 + 1e-9)") == (1, 0, 0, 1, 1)


def test_the_pruned_form_must_still_recover_the_data():
    # data from 1.0000009*x1*x2 on a narrow, far-from-zero box (spread about 0.1 around 1000): the
    # prediction fits exactly, the truth string has no weight; snapping the weight to 1 moves every
    # value by about 9e-4, an FVU near 1e-4, far above 2**-23: no tolerant match
    truth, prediction = "x1*x2", "1.0000009*x1*x2"
    data = make_data(truth, low=1000.0, high=1000.5, truth_of_data=prediction)
    data["X_support"][:, 1] = data["X_validation"][:, 1] = 1.0  # x2 = 1: y = 1.0000009*x1
    f = compile_expr(parse(prediction, V), V)
    data["y_support"], data["y_validation"] = f(data["X_support"]), f(data["X_validation"])
    r = Judge(truth, data).score(prediction)
    assert r["nrr_validation"] == 1 and r["srr_exponents"] == 0
    assert r["srr_exponents_pruned"] == 0 and r["srr_structure_pruned"] == 0


def test_failed_predictions_count_zero():
    r = Judge("x1*x2", make_data("x1*x2")).score("x1 +")
    assert r["srr_structure_pruned"] == 0 and r["srr_exponents_pruned"] == 0


def test_pruning_is_deterministic():
    data = make_data("x1*x2")
    first = [Judge("x1*x2", data).score("1e-9 + 1.00000055*x1*x2 + 1e-10*x2") for _ in range(3)]
    assert all(r == first[0] for r in first)
