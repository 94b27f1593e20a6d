"""The arena's deterministic judgments: which rule decides, and the reason kept with it."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.expr.parser import parse
from srbf.judge.arena_judgments import operator_labels, pair_judgment, truth_judgment
from srbf.judge.formula_facts import describe
from srbf.judge.scoring import Judge

TRUTH = "x**3 + x**2 + x"


def _make_judge(truth, f):
    rng = np.random.default_rng(0)
    X_s, X_v = rng.uniform(-1, 1, (40, 1)), rng.uniform(-1, 1, (40, 1))
    return Judge(truth, {"X_support": X_s, "y_support": f(X_s[:, 0]), "X_validation": X_v, "y_validation": f(X_v[:, 0])},
                 variables=["x"])  # fmt: skip


@pytest.fixture(scope="module")
def judge():
    return _make_judge(TRUTH, lambda x: x**3 + x**2 + x)


def _judge(judge, text):
    tree = parse(text, ["x"])
    record = judge.score(tree)
    facts = describe(tree, 1, judge.canonical_time_limit, judge.positive) if record["success"] else None
    return truth_judgment(record, facts, judge.truth_formula)


def test_identical_canonical_forms(judge):
    j = _judge(judge, "x + x*x + x*x*x")
    assert (j.equivalent, j.judgment, j.reason) == (True, "equivalent", "the canonical forms are identical")


def test_the_numeric_probe(judge):
    j = _judge(judge, "x*(x**2 + x + 1)")  # expanded by no canonical rule: the probe decides
    assert j.equivalent
    assert j.reason.startswith(("numeric probe", "the canonical forms are identical"))


def test_the_tolerant_comparison():
    # off by 1e-9 relative: the probe says no; with the fitted constants masked the forms are the truth's
    j = _judge(_make_judge("2.5*x**3 + x", lambda x: 2.5 * x**3 + x), "2.5000000025*x**3 + x")
    assert (j.equivalent, j.judgment) == (True, "equivalent")
    assert j.reason.startswith("tolerant")


def test_the_pruned_comparison(judge):
    # a factor the truth does not have: only the pruned prediction (1.000000001 snapped to 1) matches
    j = _judge(judge, "1.000000001*x**3 + x**2 + x")
    assert (j.equivalent, j.judgment) == (True, "equivalent")
    assert j.reason.startswith("pruned")


def test_a_different_formula_keeps_its_partial_parts(judge):
    j = _judge(judge, "x**2 + x")
    assert (j.equivalent, j.judgment) == (False, "not equivalent")
    assert j.reason.startswith("no Numeric Recovery")
    assert 0 < j.tree_similarity < 1 and j.variable_f1 == 1.0
    assert j.size_prediction < j.size_truth


def test_an_invalid_formula(judge):
    j = _judge(judge, "log(x - 5)")  # undefined on the whole domain
    assert (j.equivalent, j.judgment, j.tree_similarity) == (False, "invalid", 0.0)
    assert "non-finite" in j.reason


def test_operator_labels():
    assert operator_labels(parse("sin(x) + x*x - 2", ["x"])) == {"+", "-", "*", "sin"}


def _pair(a, b):
    X = np.linspace(1, 2, 16)[:, None]
    trees = [parse(t, ["x"]) for t in (a, b)]
    facts = [describe(t, 1, 1.0, frozenset()) for t in trees]
    return pair_judgment((trees[0], facts[0]), (trees[1], facts[1]), ["x"], X, 1.0)


def test_pairs_of_repeats():
    assert _pair("x*x + 1", "1 + x**2").judgment == "equivalent"
    same = _pair("2.5*x + 1.25", "3.75*x + 0.5")
    assert (same.positive, same.judgment, same.reason) == (True, "same structure", "identical once every number is masked")
    different = _pair("sin(x)", "x + 1")
    assert (different.positive, different.judgment) == (False, "different")
    undetermined = _pair("log(-x)", "x")  # the first is defined at none of the probe points
    assert (undetermined.positive, undetermined.judgment) == (False, "undetermined")
