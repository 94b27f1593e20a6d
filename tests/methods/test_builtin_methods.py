"""The built-in reference methods: linear, oracle, prior, enumeration (the file runs in a few seconds)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from srbf.expr import compile_expr, parse, to_infix
from srbf.methods import builtin
from srbf.methods.builtin import enumeration, linear, oracle, prior
from srbf.methods.builtin.fitting import fvu

V = ("x0", "x1")


def points(n=200, seed=0, low=-1.0, high=1.0, d=2):
    return np.random.default_rng(seed).uniform(low, high, size=(n, d))


def score(expression, X, y, variables=V):
    return fvu(y, compile_expr(parse(expression, list(variables)), list(variables))(X))


class Recorder(list):
    def __call__(self, expression):
        assert isinstance(expression, str)
        self.append(expression)


# --- linear ----------------------------------------------------------------------------------


def test_linear_recovers_a_linear_formula_exactly():
    X = points()
    y = 2 * X[:, 0] - 3 * X[:, 1] + 1
    out = linear.fit(X, y, budget=None, seed=0, variables=V, options={}, report=None)
    assert score(out["expression"], X, y) < 1e-20
    fresh = points(seed=1, low=-5, high=5)
    assert score(out["expression"], fresh, 2 * fresh[:, 0] - 3 * fresh[:, 1] + 1) < 1e-20
    assert out["constants"] == pytest.approx([2, -3, 1], rel=1e-12)
    assert " - " in out["expression"]  # negative terms read naturally


def test_linear_without_intercept_and_formula_text():
    X = points()
    out = linear.fit(X, 4.0 * X[:, 1], budget=1, seed=0, variables=V, options={"intercept": False}, report=None)
    assert len(out["constants"]) == 2
    assert to_infix(linear.linear_formula(["a", "b"], [1.5, -2.0], -0.5)) == "1.5 * a - 2 * b - 0.5"


# --- oracle ----------------------------------------------------------------------------------


def test_oracle_refits_the_truth_to_numeric_recovery():
    truth = "2.5*x0*sin(x1)"
    X = points(low=-3, high=3)
    y = 2.5 * X[:, 0] * np.sin(X[:, 1])
    calls = Recorder()
    out = oracle.fit(X, y, budget=None, seed=4, variables=V, options={"truth": truth}, report=calls)
    assert out["sees_truth"] is True and out["free_constants"] == 1
    got = parse(out["expression"], list(V))
    skeleton, _ = oracle.parametrize(got)
    assert skeleton == oracle.parametrize(parse(truth, list(V)))[0]  # the truth's structure
    fresh = points(seed=9, low=-3, high=3)
    assert score(out["expression"], fresh, 2.5 * fresh[:, 0] * np.sin(fresh[:, 1])) < 2**-23
    assert calls == [out["expression"]]
    again = oracle.fit(X, y, budget=None, seed=4, variables=V, options={"truth": truth}, report=None)
    assert again["expression"] == out["expression"]


def test_oracle_starts_away_from_the_truth():
    start = oracle.perturbed_start([2.5, -1.0, 0.0], 0.1, seed=0)
    assert np.all(start[:2] != [2.5, -1.0]) and start[2] == 0.0
    assert np.all(np.abs(start[:2] / [2.5, -1.0] - 1) < 0.5)
    np.testing.assert_array_equal(start, oracle.perturbed_start([2.5, -1.0, 0.0], 0.1, seed=0))
    assert not np.array_equal(start, oracle.perturbed_start([2.5, -1.0, 0.0], 0.1, seed=1))
    np.testing.assert_array_equal(oracle.perturbed_start([2.5], 0.0, seed=0), [2.5])


@pytest.mark.parametrize(
    "truth, skeleton, values",
    [
        ("x0**2 + 3*x1", "x0**2 + _c * x1", [3.0]),
        ("x0**-1", "x0**-1", []),
        ("x0**0.5 - 1", "x0**_c - _c", [0.5, 1.0]),
        ("exp(-x0**2 / 2) / sqrt(2 * 3.141592653589793)", "exp(-x0**2 / _c) / _c", [2.0, (2 * np.pi) ** 0.5]),
        ("sin(pi * x0)", "sin(_c * x0)", [np.pi]),
    ],
)
def test_oracle_free_constants(truth, skeleton, values):
    tree, found = oracle.parametrize(parse(truth, list(V)))
    assert to_infix(tree) == skeleton
    assert found == pytest.approx(values, rel=1e-15)


def test_oracle_exponent_rules_and_missing_truth():
    assert to_infix(oracle.parametrize(parse("x0**0.5", list(V)), "all")[0]) == "x0**0.5"
    assert to_infix(oracle.parametrize(parse("x0**2", list(V)), "none")[0]) == "x0**_c"
    X = points()
    with pytest.raises(ValueError, match="truth"):
        oracle.fit(X, X[:, 0], budget=None, seed=0, variables=V, options={}, report=None)


# --- prior -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_prior_finds_a_good_fit_deterministically_and_reports_improvements():
    X = points()
    y = X[:, 0] * X[:, 0] + X[:, 1]
    calls = Recorder()
    out = prior.fit(X, y, budget=200, seed=3, variables=V, options={}, report=calls)
    assert score(out["expression"], X, y) < 0.5
    assert out["draws"] == 200 and 0 < out["candidates_fitted"] <= 200
    # the reported incumbents improve strictly, and the last one is the answer
    assert calls and calls[-1] == out["expression"]
    scores = [score(text, X, y) for text in calls]
    assert all(b < a for a, b in zip(scores, scores[1:]))
    assert out["improvements"] == len(calls)
    again = prior.fit(X, y, budget=200, seed=3, variables=V, options={}, report=None)
    assert again["expression"] == out["expression"]
    other = prior.fit(X, y, budget=200, seed=4, variables=V, options={}, report=None)
    assert other["candidates_fitted"] != out["candidates_fitted"] or other["expression"] != out["expression"]


def test_prior_grammar_respects_its_limits():
    grammar = prior.Grammar(
        list(V), unary=["sin"], binary=["add"], max_depth=3, max_size=7, leaf_prob=0.1, unary_prob=0.5, const_prob=0.0
    )
    rng = np.random.default_rng(0)
    trees = [grammar.draw(rng) for _ in range(300)]
    texts = {to_infix(t) for t in trees}
    assert all(len(list(_nodes(t))) <= 7 for t in trees)
    assert not any("_c" in text or "*" in text or "cos" in text for text in texts)
    assert len(texts) > 20


def _nodes(tree):
    yield tree
    for arg in getattr(tree, "args", ()):
        yield from _nodes(arg)


# --- enumeration -----------------------------------------------------------------------------


@pytest.mark.parametrize("truth, unary", [("x0*x1", []), ("x0 + x1", ["exp"])])
@pytest.mark.slow
def test_enumeration_finds_small_formulas_exactly(truth, unary):
    X = points()
    y = compile_expr(parse(truth, list(V)), list(V))(X)
    calls = Recorder()
    out = enumeration.fit(X, y, budget=5, seed=0, variables=V, options={"unary": unary}, report=calls)
    assert parse(out["expression"], list(V)) == parse(truth, list(V))
    assert score(out["expression"], X, y) == 0.0
    assert calls[-1] == out["expression"]
    # it stops at the exact fit (size 3): nothing larger can outrank it ...
    assert out["complete_to_size"] == 2 and out["truncated"] is False and "exact" in out["stop_reason"]
    # ... and the whole enumeration gives the same answer
    full = enumeration.fit(X, y, budget=5, seed=0, variables=V, options={"unary": unary, "stop_on_exact": False}, report=None)
    assert full["expression"] == out["expression"]
    assert full["complete_to_size"] == 5 and full["truncated"] is False and full["stop_reason"] is None
    counts = [len(trees) for _, trees in enumeration.skeletons_by_size(list(V), 5, unary=unary)]
    assert full["skeletons_per_size"] == {str(size): count for size, count in enumerate(counts, start=1)}
    assert full["candidates_fitted"] == sum(counts)
    assert [entry["complexity"] for entry in full["front"]] == sorted(entry["complexity"] for entry in full["front"])


def test_enumeration_stops_cleanly_before_a_size_that_explodes():
    X = points()
    y = np.exp(X[:, 0]) + X[:, 1]
    out = enumeration.fit(X, y, budget=9, seed=0, variables=V, options={"unary": [], "max_skeletons": 100}, report=None)
    # sizes 1-4 have 3, 0, 18, 0 skeletons; size 5 has 272, over the cap of 100 fits
    assert out["truncated"] is True and out["complete_to_size"] == 4
    assert out["candidates_fitted"] == 3 + 0 + 18 + 0
    assert "max_skeletons" in out["stop_reason"]
    # size 5 combines 4 * (3*18 + 18*3) = 432 raw trees, over the cap of 50
    out = enumeration.fit(X, y, budget=9, seed=0, variables=V, options={"unary": [], "max_generated": 50}, report=None)
    assert out["complete_to_size"] == 4 and "max_generated" in out["stop_reason"]


# --- shared behaviour ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "module, options, message",
    [
        (prior, {"restart": 2}, r"unknown option\(s\) 'restart' \(known options: .*restarts"),
        (enumeration, {"unary": ["sine"]}, "unknown operator 'sine'"),
        (enumeration, {"binary": ["sin"]}, "takes 1 argument"),
        (prior, {"const_prob": 1.5}, "probability"),
        (linear, {"budget": 3}, "unknown option"),
    ],
)
def test_bad_options_are_named(module, options, message):
    X = points(n=20)
    with pytest.raises(ValueError, match=message):
        module.fit(X, X[:, 0], budget=10, seed=0, variables=V, options=options, report=None)


@pytest.mark.parametrize("name", builtin.BUILTIN_METHODS)
def test_each_builtin_runs_from_its_file_and_returns_json(name):
    # the worker imports a method by file path, outside the package: absolute imports must work
    spec = importlib.util.spec_from_file_location(f"_builtin_{name}", builtin.path_of(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    X = points(n=64)
    y = 1.5 * X[:, 0] + np.cos(X[:, 1])
    options = {"truth": "1.5*x0 + cos(x1)"} if name in builtin.ORACLE_METHODS else {}
    if hasattr(module, "setup"):
        module.setup(options)
    budget = {"prior": 30, "enumeration": 3}.get(name, 1)
    out = module.fit(X, y, budget=budget, seed=1, variables=V, options=options, report=None)
    assert isinstance(out["expression"], str) and parse(out["expression"], list(V)) is not None
    assert out["fit_seconds"] >= 0
    json.dumps(out, allow_nan=False)
    assert out.get("sees_truth", False) == (name in builtin.ORACLE_METHODS)
    with pytest.raises(ValueError):
        builtin.path_of("nope")


@pytest.mark.slow
def test_a_linear_worker_starts_without_scipy_optimize_or_the_parent_side():
    """Worker start-up is paid once per worker and per restart: ``linear`` needs NumPy and
    srbf.expr, not SciPy's optimiser (half a second) nor the parent's worker machinery."""
    import subprocess
    import sys

    code = "import sys, srbf.methods.builtin.linear; print(sorted(m for m in ('scipy.optimize', 'srbf.methods.worker') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
