"""Prefix tokens, constant counts, nesting and description length against hand values."""

import math
import random

import pytest

from srbf.expr import OPERATORS, canonical, parse
from srbf.expr.tree import Call, Var
from srbf.judge.length import (
    binarize,
    count_constants,
    description_length,
    nesting,
    number_bits,
    prefix_tokens,
    vocabulary_size,
)

V = ["x", "y", "z"]


def canon(text):
    return canonical(parse(text, V))


def test_prefix_tokens_write_nary_nodes_as_binary_chains():
    x, y, z = Var("x"), Var("y"), Var("z")
    assert prefix_tokens(Call("add", (x, y, z))) == ["+", "+", "x", "y", "z"]
    assert prefix_tokens(Call("mul", (x, Call("add", (y, z, x))))) == ["*", "x", "+", "+", "y", "z", "x"]
    assert prefix_tokens(parse("-sin(x)**2", V)) == ["neg", "**", "sin", "x", "2"]
    assert binarize(Call("add", (x, y, z))) == Call("add", (Call("add", (x, y)), z))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2.5*x*sin(3*y)", 2),
        ("x - y", 0),  # the -1 of a subtraction is a sign, not a fitted number
        ("x**2/y", 0),  # exponents and the -1 of a division are not counted
        ("exp(-x/2)", 1),  # the -0.5
        ("x + 1", 1),
        ("3.0", 1),
        ("2*pi*x", 1),  # the canonical form folds 2*pi into one number
    ],
)
def test_constant_count(text, expected):
    assert count_constants(canon(text)) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("sin(log(x))", 1),
        ("sin(log(acosh(x)))", 2),
        ("sin(x) + log(x)", 0),
        ("exp(sin(exp(x)))", 2),
        ("sin(2*log(x))", 0),
        ("sin(log(x)) + cos(exp(y))", 2),  # separate chains add up
        ("x*y", 0),
    ],
)
def test_nesting(text, expected):
    assert nesting(canon(text)) == expected


def test_number_bits_hand_values():
    log10 = math.log2(10)
    assert number_bits(2.0) == pytest.approx(1 + log10 + 1)  # m=2, k=0: gamma(1) = 1 bit
    assert number_bits(2.5) == pytest.approx(1 + 2 * log10 + 3)  # m=25, k=-1: zigzag 1, gamma(2) = 3
    assert number_bits(-2.5) == number_bits(2.5)
    assert number_bits(100.0) == pytest.approx(1 + log10 + 5)  # m=1, k=2: zigzag 4, gamma(5) = 5
    assert number_bits(1e-8) == pytest.approx(1 + log10 + 9)  # k=-8: zigzag 15, gamma(16) = 9
    assert number_bits(0.0) == pytest.approx(1 + log10 + 1)
    assert number_bits(math.pi) > number_bits(3.14) > number_bits(3.0)


def test_number_bits_reads_the_digits_decimal_would():
    """The digits and exponent come off the shortest repr, as Decimal(repr(v)).normalize() gives them."""
    from decimal import Decimal

    rng = random.Random(7)
    values = [100.0, 1e22, 5e-324, 1.7976931348623157e308, 123456789012345680.0, 0.001, 10.0, 1e16, 2.5e-7]
    values += [rng.uniform(0, 10) * 10.0 ** rng.randint(-30, 30) for _ in range(2000)]
    values += [float(rng.randint(1, 10**12)) * 10.0 ** rng.randint(-12, 12) for _ in range(2000)]
    values += [round(rng.uniform(0, 1000), rng.randint(0, 8)) for _ in range(2000)]
    for value in values:
        if value == 0:
            continue
        _, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
        zigzag = 2 * exponent if exponent >= 0 else -2 * exponent - 1
        expected = 1 + len(digits) * math.log2(10) + 2 * ((zigzag + 1).bit_length() - 1) + 1
        assert number_bits(value) == expected == number_bits(-value), value


def test_description_length_hand_value():
    # 2.5*x*sin(y) -> * * 2.5 x sin y: 6 tokens of log2|V| bits plus the digits of 2.5
    vocabulary = len(OPERATORS) + 2 + 3 + 1
    assert vocabulary_size(3) == vocabulary
    expected = 6 * math.log2(vocabulary) + 1 + 2 * math.log2(10) + 3
    assert description_length(canon("2.5*x*sin(y)"), 3) == pytest.approx(expected)
    # a longer number costs more, a longer formula costs more
    assert description_length(canon("2.53*x*sin(y)"), 3) > description_length(canon("2.5*x*sin(y)"), 3)
    assert description_length(canon("x*y*z"), 3) > description_length(canon("x*y"), 3)


def test_raw_exponent_skeleton_keeps_only_exponents():
    from srbf.expr import MASK
    from srbf.expr.masking import raw_skeleton

    tree = raw_skeleton(parse("2.5*x**2 + pi", V), "exponents")
    assert tree == Call("add", (Call("mul", (MASK, Call("pow", (Var("x"), parse("2"))))), MASK))
