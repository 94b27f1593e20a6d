"""Evaluation against hand-computed values, with NaN/inf returned quietly."""

import math
import warnings

import numpy as np
import pytest

from srbf.expr import compile_expr, parse

X = ["x0", "x1"]


def run(text, rows):
    return compile_expr(parse(text, X), X)(np.array(rows, dtype=float))


def test_hand_computed_values():
    rows = [[1.0, 0.0], [2.0, math.pi / 2], [0.5, math.pi]]
    got = run("x0**2 + sin(x1)", rows)
    np.testing.assert_allclose(got, [1.0, 5.0, 0.25], atol=1e-15)
    np.testing.assert_allclose(run("2.5*x0*x1 + 1", [[2.0, 3.0]]), [16.0])
    np.testing.assert_allclose(run("exp(-x0**2/2)/sqrt(2*pi)", [[0.0, 0.0]]), [1 / math.sqrt(2 * math.pi)])
    np.testing.assert_allclose(run("max(x0, x1) - min(x0, x1)", [[1.0, 4.0], [5.0, 2.0]]), [3.0, 3.0])
    np.testing.assert_allclose(run("inv(x0) + square(x1) + cube(x1)", [[4.0, 2.0]]), [0.25 + 4 + 8])
    np.testing.assert_allclose(run("log(e) + atan2(x0, x1)", [[1.0, 1.0]]), [1 + math.pi / 4])


def test_invalid_values_are_returned_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning would fail the test
        got = run("1/x0 + sqrt(x1) + log(x1)", [[0.0, 1.0], [1.0, -1.0], [1.0, 0.0]])
    assert got[0] == math.inf
    assert math.isnan(got[1])
    assert got[2] == -math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isinf(run("exp(x0)", [[1000.0, 0.0]])[0])


def test_constant_formula_has_one_value_per_point():
    got = compile_expr(parse("2*pi"), ["x0"])(np.zeros((3, 1)))
    assert got.shape == (3,)
    np.testing.assert_allclose(got, 2 * math.pi)


def test_compiled_once_reused_across_point_sets():
    f = compile_expr(parse("x0*x1"), X)
    a = f(np.array([[1.0, 2.0]]))
    b = f(np.array([[3.0, 4.0], [5.0, 6.0]]))
    assert a.tolist() == [2.0] and b.tolist() == [12.0, 30.0]


def test_unused_and_missing_columns():
    f = compile_expr(parse("x1"), X)
    assert f(np.array([[9.0, 7.0]])).tolist() == [7.0]
    with pytest.raises(ValueError, match="z"):
        compile_expr(parse("z + 1"), X)
    with pytest.raises(ValueError, match="shape"):
        f(np.zeros((3, 5)))


def test_every_operator_evaluates():
    from srbf.expr import OPERATORS

    points = np.array([[0.3, 0.7]])
    for op in OPERATORS.values():
        args = ", ".join(["x0 + 1" if op.name == "acosh" else "x0", "x1"][: op.arity])
        text = f"{op.name}({args})"
        value = compile_expr(parse(text, X), X)(points)
        assert value.shape == (1,) and np.isfinite(value[0]), text


def test_n_ary_sums_and_products_print_and_evaluate():
    from srbf.expr import Call, Num, Var, to_infix, to_latex

    x0, x1 = Var("x0"), Var("x1")
    tree = Call("add", (x0, Call("mul", (Num(2), x0, x1)), Num(1)))
    assert to_infix(tree) == "x0 + 2 * x0 * x1 + 1"
    assert to_latex(tree) == r"x_{0} + 2 x_{0} x_{1} + 1"
    got = compile_expr(tree, X)(np.array([[3.0, 4.0]]))
    assert got.tolist() == [3 + 24 + 1]


@pytest.mark.slow
def test_a_20000_term_sum_parses_prints_compares_and_evaluates():
    from srbf.expr import to_infix, to_latex

    names = ["x0", "x1"]
    text = " + ".join(f"{i % 5} * x{i % 2}" for i in range(20000))
    tree = parse(text, names)
    assert to_infix(tree) == text
    assert to_latex(tree).count("+") == 19999
    again = parse(text, names)
    assert again == tree and hash(again) == hash(tree) and again != parse(text + " + 1", names)
    X = np.array([[1.0, 10.0], [2.0, -1.0]])
    expected = sum((i % 5) * X[:, i % 2] for i in range(20000))
    np.testing.assert_allclose(compile_expr(tree, names)(X), expected, rtol=1e-12)
