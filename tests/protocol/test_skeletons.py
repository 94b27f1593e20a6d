"""Skeletons: equal for renamed, re-constanted and rewritten copies, different for other formulas."""

from __future__ import annotations

import random
import re

import pytest

from srbf.catalogs.loader import load_catalog
from srbf.expr import parse
from srbf.protocol.skeletons import skeleton


def sk(text: str):
    return skeleton(parse(text))


@pytest.mark.parametrize("a, b", [
    ("x * sin(y) + 2.5", "0.1 + sin(beta) * alpha"),           # names, constants, order
    ("x - y", "q - p"),                                          # which side carries the sign
    ("m * a / (b**2 - c**2)", "k * z / (w**2 - u**2)"),
    ("3 * x / (4 * y)", "x / y"),                                # coefficients are dropped
    ("exp(-(t / s)**2 / 2) / (sqrt(2 * pi) * s)", "exp(-(b / a)**2 / 3.7) / (sqrt(5.1 * pi) * a)"),
])
def test_renamed_copies_share_a_skeleton(a, b):
    assert sk(a).text == sk(b).text
    assert sk(a).shape == sk(b).shape


@pytest.mark.parametrize("a, b", [
    ("x * y", "x**2"),
    ("sin(x) * y", "cos(x) * y"),
    ("x * y + z", "x * (y + z)"),
    ("sin(x) + y", "sin(x + y)"),
])
def test_different_formulas_differ(a, b):
    assert sk(a).text != sk(b).text


def test_variables_are_renamed_by_position_not_by_name():
    assert sk("exp(zeta) + b").text == sk("exp(a) + zz").text == "v1 + exp(v2)"


@pytest.mark.slow
def test_too_many_tied_orders_fall_back_to_the_shape():
    """I.9.18's nine variables have 4,320 tied orders: the text is not exhaustive, the shape is
    still the same for a copy with its pairs in another order and other names."""
    a = sk("G * m1 * m2 / ((x2 - x1)**2 + (y2 - y1)**2 + (z2 - z1)**2)")
    b = sk("k * p * q / ((b3 - a3)**2 + (b1 - a1)**2 + (a2 - b2)**2)")
    assert not a.exhaustive and not b.exhaustive
    assert a.shape == b.shape
    assert a.shape != sk("G * m1 * m2 / ((x2 - x1)**2 + (y2 - y1)**2 + z2**2)").shape


@pytest.mark.parametrize("name", ["feynman", "fastsrb"])
@pytest.mark.slow
def test_every_shipped_formula_survives_renaming(name):
    """Each formula of the set, its variables renamed at random and its decimals redrawn, keeps
    its skeleton (its text when exhaustive, else its shape)."""
    rng = random.Random(7)
    for entry in load_catalog(name).entries:
        names = {old: f"w{rng.randrange(10**6)}_{i}" for i, old in enumerate(entry.variable_names)}
        text = re.sub(r"[^\W\d]\w*", lambda m: names.get(m.group(0), m.group(0)), entry.formula)
        text = re.sub(r"\d+\.\d+(e-?\d+)?", lambda m: repr(rng.uniform(0.1, 9.0)), text)
        a = skeleton(parse(entry.formula, list(entry.variable_names)))
        b = skeleton(parse(text, list(names.values())))
        assert (a.text == b.text) if a.exhaustive else (a.shape == b.shape), entry.id
