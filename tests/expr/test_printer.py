"""Printing: infix round-trips exactly (property-based), prefix tokens, LaTeX."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from srbf.expr import OPERATORS, Call, Const, Num, Var, parse, to_infix, to_latex, to_prefix

NAMES = ["x0", "x1", "theta", "m_1", "E_n"]

numbers = st.floats(allow_nan=False, allow_infinity=True, width=64).map(Num)
leaves = st.one_of(numbers, st.sampled_from(NAMES).map(Var), st.sampled_from(["pi", "e"]).map(Const))


def _extend(children):
    unary = st.builds(lambda op, a: Call(op, (a,)), st.sampled_from([o.name for o in OPERATORS.values() if o.arity == 1]), children)
    binary = st.builds(
        lambda op, a, b: Call(op, (a, b)), st.sampled_from([o.name for o in OPERATORS.values() if o.arity == 2]), children, children
    )
    return st.one_of(unary, binary)


trees = st.recursive(leaves, _extend, max_leaves=25)


@settings(max_examples=600, deadline=None)
@given(trees)
@pytest.mark.slow
def test_infix_round_trip_is_identity(tree):
    assert parse(to_infix(tree), NAMES) == tree


@settings(max_examples=300, deadline=None)
@given(trees)
@pytest.mark.slow
def test_prefix_round_trip_is_identity(tree):
    tokens = to_prefix(tree)
    assert parse(tokens, NAMES) == tree
    assert parse(" ".join(tokens), NAMES, notation="prefix") == tree


def test_infix_uses_minimal_brackets():
    cases = {
        "x0 + x1 * x0": "x0 + x1 * x0",
        "(x0 + x1) * x0": "(x0 + x1) * x0",
        "x0 - (x1 - x0)": "x0 - (x1 - x0)",
        "(x0 - x1) - x0": "x0 - x1 - x0",
        "x0 / (x1 * x0)": "x0 / (x1 * x0)",
        "(x0**x1)**2": "(x0**x1)**2",
        "x0**(x1**2)": "x0**x1**2",
        "-(x0 + x1)": "-(x0 + x1)",
        "(-x0)**2": "(-x0)**2",
        "2.0*x0": "2 * x0",
    }
    for text, printed in cases.items():
        assert to_infix(parse(text, ["x0", "x1"])) == printed


def test_numbers_print_exactly():
    for value in [0.1, 1 / 3, 1e-300, 6.02214076e23, -2.5, 3.0, 1e16, math.pi]:
        assert float(to_infix(Num(value))) == value


def test_prefix_tokens():
    assert to_prefix(parse("x0**2 + sin(x1)", ["x0", "x1"])) == ["+", "**", "x0", "2", "sin", "x1"]
    assert to_prefix(parse("-x0", ["x0"])) == ["neg", "x0"]


def test_latex():
    x = ["x0", "x1", "theta", "omega_0"]
    assert to_latex(parse("x0**2/2 + sin(x1)", x)) == r"\frac{{x_{0}}^{2}}{2} + \sin\left(x_{1}\right)"
    assert to_latex(parse("sqrt(theta) * pi", x)) == r"\sqrt{\theta} \pi"
    assert to_latex(parse("omega_0 * 2", x)) == r"\omega_{0} \cdot 2"
    assert to_latex(parse("1.5e-10 * x0", x)) == r"1.5 \cdot 10^{-10} x_{0}"
    assert to_latex(parse("x0 - (x1 + 1)", x)) == r"x_{0} - \left(x_{1} + 1\right)"
    assert to_latex(parse("x0 - -2", x)) == r"x_{0} - \left(-2\right)"
    assert to_latex(parse("exp(-x0)", x)) == r"e^{-x_{0}}"
