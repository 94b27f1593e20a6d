"""The parser on every spelling SR packages emit, and on malformed input."""

import math

import pytest

from srbf.expr import Call, Const, Num, ParseError, Var, parse
from srbf.expr.tree import count_nodes

X = ["x0", "x1"]


def add(a, b):
    return Call("add", (a, b))


def mul(a, b):
    return Call("mul", (a, b))


def pow_(a, b):
    return Call("pow", (a, b))


x0, x1 = Var("x0"), Var("x1")
SIN_X1 = Call("sin", (x1,))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x0**2 + sin(x1)", add(pow_(x0, Num(2)), SIN_X1)),
        ("2.5*x0*x1 + 1", add(mul(mul(Num(2.5), x0), x1), Num(1))),
        ("1.1e-16", Num(1.1e-16)),
        ("1E+5", Num(1e5)),
        ("1./3", Call("div", (Num(1), Num(3)))),
        (".5*x0", mul(Num(0.5), x0)),
        ("y = x0^2 + sin(x1)", add(pow_(x0, Num(2)), SIN_X1)),
        ("add(mul(X0, X0), X1)", add(mul(x0, x0), x1)),
        ("sub(div(x0, x1), neg(inv(x0)))", Call("sub", (Call("div", (x0, x1)), Call("neg", (Call("inv", (x0,)),))))),
        ("sqrt(log(abs(x0)))", Call("sqrt", (Call("log", (Call("abs", (x0,)),)),))),
        ("max(x0, min(x1, 2))", Call("max", (x0, Call("min", (x1, Num(2)))))),
        ("Sin(x1)", SIN_X1),
        ("Recip(x0)", Call("inv", (x0,))),
        ("Square(x0)", Call("square", (x0,))),
        ("np.sin(x1)", SIN_X1),
        ("math.exp(x0) + numpy.cos(x1)", add(Call("exp", (x0,)), Call("cos", (x1,)))),
        ("arcsin(x0)", Call("asin", (x0,))),
        ("Abs(x0)", Call("abs", (x0,))),
        ("+ x1 * 2.5 x0", add(x1, mul(Num(2.5), x0))),
        ("* + x0 x1 -2.5", mul(add(x0, x1), Num(-2.5))),
        ("neg sin x1", Call("neg", (SIN_X1,))),
        ("x0 * pi + e", add(mul(x0, Const("pi")), Const("e"))),
        ("np.pi", Const("pi")),
        ("Add(x0, x1, 1)", add(add(x0, x1), Num(1))),
        ("log(x0, 10)", Call("div", (Call("log", (x0,)), Call("log", (Num(10),))))),
        ("x0 \u2212 x1", Call("sub", (x0, x1))),
        ("[x0 + x1]", add(x0, x1)),
    ],
)
def test_spellings(text, expected):
    assert parse(text, X) == expected


def test_token_list_is_prefix():
    assert parse(["+", "x1", "*", "2.5", "x0"], X) == add(x1, mul(Num(2.5), x0))


def test_python_precedence():
    assert parse("-x0**2", X) == Call("neg", (pow_(x0, Num(2)),))
    assert parse("-x0*x1", X) == mul(Call("neg", (x0,)), x1)
    assert parse("x0**x1**2", X) == pow_(x0, pow_(x1, Num(2)))
    assert parse("x0**-2", X) == pow_(x0, Num(-2))
    assert parse("x0 - x1 - 1", X) == Call("sub", (Call("sub", (x0, x1)), Num(1)))
    assert parse("x0 / x1 / 2", X) == Call("div", (Call("div", (x0, x1)), Num(2)))
    assert parse("-2.5", X) == Num(-2.5)
    assert parse("-(2.5)", X) == Call("neg", (Num(2.5),))
    assert parse("-2**x0", X) == Call("neg", (pow_(Num(2), x0),))


def test_one_based_columns():
    assert parse("X1 + X2", ["a", "b"], one_based=True) == add(Var("a"), Var("b"))
    with pytest.raises(ParseError, match="column 2"):
        parse("X3", ["a", "b"], one_based=True)


def test_generic_columns_resolve_by_name_then_index():
    # declared name wins by default; a method numbering its columns asks for by_index
    assert parse("x1", ["x1", "x2"]) == Var("x1")
    assert parse("x1", ["x1", "x2"], by_index=True) == Var("x2")
    assert parse("x_1 + X0", ["a", "b"]) == add(Var("b"), Var("a"))


def test_declared_variable_shadows_constant():
    assert parse("e + pi", ["e"]) == add(Var("e"), Const("pi"))


def test_special_numbers():
    assert parse("inf", X) == Num(math.inf)
    assert parse("-inf", X) == Num(-math.inf)
    assert parse("nan", X) == Num(math.nan)


def test_without_declared_variables_any_name_is_a_variable():
    assert parse("alpha * beta_2") == mul(Var("alpha"), Var("beta_2"))
    assert parse("\u03b8 + 1") == add(Var("\u03b8"), Num(1))


@pytest.mark.parametrize(
    "text, token, position, message",
    [
        ("", "", 0, "empty"),
        ("   ", "", 0, "empty"),
        ("sin(x0", "(", 3, "never closed"),
        ("(x0 + x1", "(", 0, "never closed"),
        ("x0 + x1)", ")", 7, "closes nothing"),
        ("foo(x0)", "foo", 0, "unknown function 'foo'"),
        ("x0 + z", "z", 5, "unknown variable 'z'"),
        ("x0 +", "", 4, "ends too early"),
        ("2 x0", "x0", 2, "unexpected 'x0'"),
        ("sin()", "sin", 0, "takes 1 argument"),
        ("pow(x0)", "pow", 0, "takes 2 argument"),
        ("x0 $ x1", "$", 3, "unexpected character"),
        (" \t x0 +\n  $ x1", "$", 10, "unexpected character"),
        ("x0 +   ", "", 7, "ends too early"),
        ("  2   x0", "x0", 6, "unexpected 'x0'"),
        ("x0 ** * 2", "*", 6, "operand is missing"),
        ("sin + x0", "sin", 0, "without arguments"),
        ("x0 = 2", "x0", 3, "left-hand side 'x0' of the '=' at position 3 is an input variable"),
        ("X_1 = 2", "X_1", 4, "left-hand side 'X_1' .* is an input variable"),
        ("f(x0, x1) = x0", "f(x0, x1)", 10, "left-hand side 'f\\(x0, x1\\)' .* is not the target's name"),
        ("z = x0", "z", 2, "not the target's name \\('y'\\)"),
        (" = x0", "=", 1, "nothing before '='"),
        ("x0 == 1", "=", 3, "unexpected character"),
        ("\u0663", "\u0663", 0, "U\\+0663.*only the ASCII digits"),
        ("x0 + 2.\u0665", "\u0665", 7, "digit"),
        ("x0 + \uff13", "\uff13", 5, "digit"),
        ("x0**\u00b2", "\u00b2", 4, "digit"),
    ],
)
def test_malformed_input(text, token, position, message):
    with pytest.raises(ParseError, match=message) as info:
        parse(text, X if "without arguments" not in message else None)
    assert info.value.token == token
    assert info.value.position == position
    assert str(position) in str(info.value) or message == "empty"


def test_equation_with_the_target_on_the_left():
    assert parse("y = x0 + 1", X) == parse("x0 + 1", X)
    assert parse("F = x0 + 1", X, target="F") == parse("x0 + 1", X)
    assert parse("y = x0", X, target="F") == x0  # y is always the output
    assert parse("y = + x0 1", X) == add(x0, Num(1))  # prefix after the '=' as well
    with pytest.raises(ParseError, match=r"not the target's name \('F' or 'y'\)"):
        parse("G = x0", X, target="F")
    with pytest.raises(ParseError, match="unexpected character '='"):
        parse("y = x0 = 2", X)


def test_other_scripts_digits_are_never_numbers():
    with pytest.raises(ParseError, match="token 1"):
        parse(["+", "\u0663", "x0"], X)
    with pytest.raises(ParseError, match="digit"):
        parse("x\u0663")  # not a variable name either
    assert parse("\u03b8 + 1") == add(Var("\u03b8"), Num(1))  # other letters are fine


def test_malformed_prefix():
    with pytest.raises(ParseError, match="argument is missing"):
        parse(["+", "x0"], X)
    with pytest.raises(ParseError, match="already complete") as info:
        parse(["x0", "x1"], X)
    assert info.value.position == 1
    with pytest.raises(ParseError):
        parse("* x0", X, notation="prefix")


def test_never_evaluates_the_string():
    # a string that Python's eval would run is just an unknown name here
    for hostile in ["__import__('os').system('true')", "x0.__class__", "lambda: 1", "x0; import os"]:
        with pytest.raises(ParseError):
            parse(hostile, X)


@pytest.mark.slow
def test_deep_nesting_is_read_without_recursion():
    assert parse("(" * 20000 + "x0" + ")" * 20000, X) == x0
    deep = parse("sin(" * 20000 + "x0" + ")" * 20000, X)
    for _ in range(20000):
        assert deep.op == "sin"
        deep = deep.args[0]
    assert deep == x0
    signs = parse("-" * 20001 + "2", X)  # an odd number of signs: a negated number under negations
    assert signs.op == "neg" and count_nodes(signs) == 20001
    tower = parse("x0" + "**x1" * 3, X)  # right-associative at any length
    assert tower == pow_(x0, pow_(x1, pow_(x1, x1)))
    prefix = parse(["sin"] * 20000 + ["x0"], X)
    assert count_nodes(prefix) == 20001


def test_deep_nesting_errors_name_the_innermost_bracket():
    with pytest.raises(ParseError, match="'\\(' at position 19999 is never closed"):
        parse("(" * 20000 + "x0", X)
    with pytest.raises(ParseError, match="closes nothing"):
        parse("(" * 20000 + "x0" + ")" * 20001, X)


def test_notation_argument_is_checked():
    with pytest.raises(ValueError, match="notation"):
        parse("x0", X, notation="polish")


def test_hashed_parse_is_the_same_tree_with_its_hashes_made():
    text = "3.5*x0 - sin(x1)/2 + -x0**2"
    plain, hashed = parse(text, X), parse(text, X, hashed=True)
    assert hashed == plain and hash(hashed) == hash(plain)
    assert hashed.__getattribute__("_hash") == hash(plain)  # set as built, not on first use


@pytest.mark.parametrize("value", [1.47, -1.5, 2.5e-3, 1e300, 0.1 + 0.2, -0.0, 3.0])
@pytest.mark.parametrize("kind", ["float64", "float32", "float16", "longdouble"])
def test_numpys_scalar_repr_reads_as_the_number_it_prints(value, kind):
    import numpy as np

    with np.errstate(over="ignore"):
        scalar = getattr(np, kind)(value)
    if not np.isfinite(scalar):
        pytest.skip(f"{value} overflows {kind}")
    text = repr(scalar)  # NumPy 2: np.float64(1.47), np.longdouble('1.47')
    assert text.startswith("np.")
    number = Num(float(str(scalar)))  # the number the repr prints
    assert parse(text, X) == number
    assert parse(f"{text} * x0", X) == Call("mul", (number, Var("x0")))


def test_numpy_integer_and_special_reprs_and_every_notation():
    import numpy as np

    assert parse(f"{np.int64(-3)!r} + x1", X) == Call("add", (Num(-3.0), Var("x1")))
    assert parse(f"x0 ** {np.uint8(2)!r}", X) == Call("pow", (Var("x0"), Num(2.0)))
    assert math.isnan(parse("np.float64(nan) + x0", X).args[0].value)
    assert parse("numpy.float64(-inf) * x0", X) == Call("mul", (Num(-math.inf), Var("x0")))
    assert parse("np.float64(-1.5)**2", X) == Call("pow", (Num(-1.5), Num(2.0)))  # (-1.5)**2, not -(1.5**2)
    assert parse("add(mul(X0, np.float64(1.47)), X1)", X) == parse("add(mul(X0, 1.47), X1)", X)  # call prefix
    assert parse("+ x0 * np.float64(-2.5) x1", X) == parse("+ x0 * -2.5 x1", X)  # prefix text
    assert parse(["+", "x0", "np.float64(-2.5)"], X) == parse(["+", "x0", "-2.5"], X)  # prefix tokens


def test_a_numpy_scalar_repr_keeps_the_positions_after_it_and_other_calls_stay_errors():
    with pytest.raises(ParseError, match="at position 19") as error:
        parse("np.float64(1.47) + )", X)
    assert error.value.position == 19
    with pytest.raises(ParseError, match="unknown function 'np.float64'"):
        parse("np.float64(x0)", X)  # a constructor of a variable is no number
    with pytest.raises(ParseError):
        parse("xnp.float64(1.5)", X)
