"""Term order never changes a metric: shuffling the terms of every sum and the factors of every
product (hypothesis, over shipped catalog formulas and random formulas) leaves the canonical form
and every structural comparison with a truth as they were.

The structural comparisons are those the judge makes (``structural_matches``: srr_structure and
srr_exponents, each by the masked canonical form or the written form with term order forgotten;
srr_all is srr_exponents with Numeric Recovery, which does not look at the writing), plus the
identity of the canonical forms (numeric_equivalence's shortcut). srr_raw compares the formulas
*as written*, so a reordering changes it by definition. A slice of the cases also goes through the
whole judge on points, every srr metric compared.

``SRBF_TERM_ORDER_CASES`` sets how many cases each of the two properties draws: 5,000 by default,
so the suite checks the issue's 10,000 cases in all (about 35 s of CPU); a smaller number makes a
quick local check, e.g. ``SRBF_TERM_ORDER_CASES=500 python -m pytest tests/judge/test_term_order.py``.
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from srbf.catalogs.admission import parse_entry
from srbf.catalogs.loader import list_catalogs, load_catalog
from srbf.catalogs.sampling import sample_problem
from srbf.expr import compile_expr, to_infix
from srbf.expr.canonical import canonical
from srbf.expr.tree import Call, Const, Num, Var, rebuild, variables_of
from srbf.judge import Judge
from srbf.judge.data import positive_variables
from srbf.judge.formula_facts import describe, structural_matches
from srbf.judge.mutations import shuffle_terms

CASES = int(os.environ.get("SRBF_TERM_ORDER_CASES", "5000"))
RATE_KEYS = ("srr_structure", "srr_exponents", "srr_all", "srr_structure_pruned", "srr_exponents_pruned", "numeric_equivalence")

ENTRIES = [(name, entry) for name in list_catalogs() for entry in load_catalog(name).entries]
NAMES = ["x0", "x1", "x2", "x3"]
NUMBERS = [1.0, 2.0, 3.0, 0.5, -1.0, -2.0, 2.5, math.pi, 0.1, 10.0]


def _tree(draw, depth: int):
    """A random formula over x0..x3: sums, differences, products, quotients, powers, functions."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return Var(draw(st.sampled_from(NAMES)))
        return Num(draw(st.sampled_from(NUMBERS)))
    op = draw(st.sampled_from(["add", "add", "sub", "mul", "mul", "div", "pow", "neg", "sin", "exp", "log", "sqrt", "cos"]))
    if op == "pow":
        return Call("pow", (_tree(draw, depth - 1), Num(draw(st.sampled_from([2.0, 3.0, -1.0, 0.5, -2.0])))))
    if op in ("add", "sub", "mul", "div"):
        return Call(op, (_tree(draw, depth - 1), _tree(draw, depth - 1)))
    return Call(op, (_tree(draw, depth - 1),))


@st.composite
def random_formulas(draw):
    return _tree(draw, 5)


def _renumbered(tree, rng: random.Random):
    """The formula with some numbers changed (a sign kept or flipped, a size changed)."""
    return rebuild(tree, lambda leaf: Num(rng.choice([leaf.value, -leaf.value, 2 * leaf.value, 1.0, 0.37]))
                   if type(leaf) is Num and rng.random() < 0.5 else leaf,  # fmt: skip
                   lambda node, args: Call(node.op, args))


def _compared(pred, truth, positive):
    n = len(variables_of(truth) | variables_of(pred))
    p, t = describe(pred, n, 10.0, positive), describe(truth, n, 10.0, positive)
    return (*structural_matches(p, t), p.canonical == t.canonical), to_infix(p.canonical)


def _check(truth, positive, seed: int) -> None:
    rng = random.Random(seed)
    prediction = [truth, _renumbered(truth, rng), shuffle_terms(truth, rng)][seed % 3]
    before, form = _compared(prediction, truth, positive)
    shuffled = shuffle_terms(prediction, rng)
    after, shuffled_form = _compared(shuffled, truth, positive)
    assert shuffled_form == form, (to_infix(prediction), to_infix(shuffled))
    assert after == before, (to_infix(truth), to_infix(prediction), to_infix(shuffled))
    against_shuffled_truth, _ = _compared(prediction, shuffle_terms(truth, rng), positive)
    assert against_shuffled_truth == before, (to_infix(truth), to_infix(prediction))


@settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.integers(0, len(ENTRIES) - 1), st.integers(0, 2**31))
@pytest.mark.slow
def test_term_order_never_changes_a_catalog_formulas_comparisons(index, seed):
    _, entry = ENTRIES[index]
    _check(parse_entry(entry), frozenset(positive_variables(entry.variables)), seed)


@settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(random_formulas(), st.integers(0, 2**31), st.sampled_from([frozenset(), frozenset({"x0", "x1"})]))
@pytest.mark.slow
def test_term_order_never_changes_a_random_formulas_comparisons(truth, seed, positive):
    _check(truth, positive, seed)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.integers(0, len(ENTRIES) - 1), st.integers(0, 2**31))
@pytest.mark.slow
def test_every_srr_metric_of_the_whole_judge_ignores_term_order(index, seed):
    """On points: the truth, a renumbered copy and 1.01 * the truth, each shuffled, scored by one
    Judge: every rate metric but srr_raw is the same for the shuffled prediction."""
    name, entry = ENTRIES[index]
    truth = parse_entry(entry)
    catalog = load_catalog(name)
    problem = sample_problem(entry, catalog=name, catalog_version=catalog.version, seed=seed % 100, n_support=32,
                             n_validation=32)  # fmt: skip
    if problem.is_placeholder:
        return
    judge = Judge(truth, problem)  # positive variables and target from the entry the problem names
    pick = random.Random(seed)
    for prediction in (truth, _renumbered(truth, pick), Call("mul", (Num(1.01), truth))):
        shuffled = shuffle_terms(prediction, pick)
        a, b = judge.score(prediction), judge.score(shuffled)
        if a["success"] and b["success"]:
            assert {k: a[k] for k in RATE_KEYS} == {k: b[k] for k in RATE_KEYS}, (to_infix(prediction), to_infix(shuffled))


def test_shuffling_reorders_and_keeps_the_values():
    rng = random.Random(1)
    tree = parse_entry(load_catalog("feynman").entry("I.12.11"))  # q*(Ef + B*v*sin(theta))
    names = sorted(variables_of(tree))
    X = np.random.default_rng(0).uniform(0.5, 2, (8, len(names)))
    orders = {to_infix(shuffle_terms(tree, rng)) for _ in range(20)}
    assert len(orders) > 2
    for _ in range(5):
        shuffled = shuffle_terms(tree, rng)
        assert np.allclose(compile_expr(shuffled, names)(X), compile_expr(tree, names)(X), rtol=1e-12)
    assert canonical(Const("pi")) == Num(math.pi)
