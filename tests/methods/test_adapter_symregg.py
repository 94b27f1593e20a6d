"""The SymRegg adapter: its conversion checked on results recorded from symregg 1.0.4 (no symregg
needed), its options and config, and real fits through the Worker when SymRegg's environment
exists (``srbf methods install symregg``, or a development venv at /tmp/env-symregg)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recorded.adapter_checks import (
    adapter, cases, evaluate, method_python, numpy_code_is_faithful, recording, toy, worker_fits,
)  # fmt: skip

NAME = "symregg"
sr = adapter(NAME)
_shared = sr._shared  # the helpers the adapter runs with
CASES = cases(NAME)
FAITHFUL = [c for c in CASES if numpy_code_is_faithful(c)]


def mse(case):
    X, y = np.asarray(case["X"]), np.asarray(case["y"])
    with np.errstate(all="ignore"):
        return float(np.mean((evaluate(case["expression"], case["variables"], X) - y) ** 2))




def test_the_recording_covers_what_the_tests_below_need():
    assert sum(c["name"].endswith("best") for c in CASES) == 3 and len(CASES) >= 12


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert sr.to_infix(case["raw"]["display"], case["variables"]) == case["expression"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_converted_formula_has_the_loss_symregg_reported(case):
    assert mse(case) == pytest.approx(case["loss_train"], rel=1e-9)


def test_only_a_power_of_a_power_makes_symreggs_numpy_code_differ():
    """Like eggp, SymRegg prints ``((a ^ b) ^ c)`` as ``a ** b ** c`` in its NumPy code."""
    for case in CASES:
        if case not in FAITHFUL:
            assert case["raw"]["numpy"].count("**") >= 2, case["raw"]["numpy"]
    assert len(FAITHFUL) >= len(CASES) - 3


def test_display_text_conversion():
    v = ["u", "v"]
    assert sr.to_infix("(Cos(Tanh(Cos(x0))) * ((-6.485754028654261 / x0) + Cos(x1)))", v) == \
        "(cos(tanh(cos(u))) * (((-6.485754028654261) / u) + cos(v)))"  # fmt: skip
    assert sr.to_infix("Sqrt((x1 ^ (x0 * (x1 ^ 0.16))))", v) == "sqrt((v ** (u * (v ** 0.16))))"
    assert sr.to_infix("(-0.65 ^ x0)", v) == "((-0.65) ** u)"
    with pytest.raises(ValueError, match="column 2"):
        sr.to_infix("x2", v)


def test_trace_gives_best_front_and_improvements():
    table = pd.DataFrame({
        "id": [3, 0, 1, 2],
        "Expression": ["(x0 * 2.0)", "x1", "1.5", "(x0 + x0)"],
        "Numpy": ["(x[:, 0] * t[0])", "x[:, 1]", "t[0]", "(x[:, 0] + x[:, 0])"],
        "theta": ["2.0", float("nan"), "1.5", float("nan")],  # pandas 3 reads an empty theta as NaN
        "size": [3, 1, 1, 3],
        "loss_train": [1.0, 3.0, 2.0, 1.0],
    })  # fmt: skip
    rows = sr.read_rows(table)
    assert [r["id"] for r in rows] == [0, 1, 2, 3] and rows[0]["theta"] == []
    assert sr.best_row(rows)["id"] == 2  # ties: the smaller size, then the first in id order
    assert [r["id"] for r in sr.pareto(rows)] == [1, 2]
    assert [s["evaluation"] for s in sr.improvements(rows)] == [0, 1, 2]


def test_options_over_defaults_and_budget():
    options = _shared.with_defaults({}, sr.OPTION_DEFAULTS)
    assert options["unary"] == ["sin", "cos", "exp", "log", "sqrt"] and options["binary"] == ["add", "sub", "mul", "div"]
    assert sr.nonterminals(options["unary"] + options["binary"]) == ("sin,cos,exp,log,sqrt,add,sub,mul,div", [])
    assert _shared.with_defaults({"params": {"alg": "OnlyRandom"}}, sr.OPTION_DEFAULTS)["params"] == {"alg": "OnlyRandom"}
    with pytest.raises(ValueError, match="number of evaluated expressions, a positive integer"):
        sr.generations(0)
    with pytest.raises(ValueError, match="positive integer"):
        sr.generations(1.5)
    assert sr.generations(64.0) == 64


# --- the budget: SymRegg's gen, recorded at 1, 2, 4, ..., 128 (recorded/record_symregg_budgets.py) ---------

BUDGET_FITS = recording("symregg_budgets")["fits"]


def by_problem():
    groups = {}
    for fit in BUDGET_FITS:
        groups.setdefault(fit["problem"], []).append(fit)
    return groups


def test_budget_recording_comes_from_the_pinned_release():
    assert recording("symregg_budgets")["version"] == "1.0.4"
    assert {f["budget"] for f in BUDGET_FITS} == {1, 2, 4, 8, 16, 32, 64, 128} and len(by_problem()) == 3


@pytest.mark.parametrize("fit", BUDGET_FITS, ids=[f"{f['problem']} gen={f['budget']}" for f in BUDGET_FITS])
def test_budget_is_passed_as_gen_and_the_trace_is_split_into_initial_and_search(fit):
    table, result = fit["table"], fit["result"]
    assert result["knob"] == {"gen": fit["budget"]}
    n = sr.initial_count(table["id"])
    assert n is not None and result["n_initial"] == n and result["n_visited"] == len(table["id"])
    assert result["n_inserted"] == len(table["id"]) - n
    # every fit of the recording ran in one process, so each started from the same initial e-graph:
    # the one a budget of 1 (at which SymRegg never searches) returns whole
    first = next(f for f in by_problem()[fit["problem"]] if f["budget"] == 1)
    assert first["result"]["n_inserted"] == 0
    assert table["display"][:n] == first["table"]["display"]
    searched = table["id"][n:]
    assert searched == list(range(fit["budget"] - len(searched), fit["budget"]))  # counted up to gen
    X, y = np.asarray(fit["X"]), np.asarray(fit["y"])
    with np.errstate(all="ignore"):
        loss = float(np.mean((evaluate(result["expression"], fit["variables"], X) - y) ** 2))
    assert loss == pytest.approx(result["loss_train"], rel=1e-9)
    assert result["loss_train"] == min(v for v in table["loss_train"] if np.isfinite(v))


@pytest.mark.parametrize("problem", sorted(by_problem()))
def test_a_budget_at_or_below_symreggs_initial_count_runs_no_search(problem):
    """gen counts evaluated expressions from the initial e-graph's count on (Search.hs, egraphSearch):
    the search inserts gen - start of them, and none when gen <= start; below that the fit is
    the initial e-graph whatever the budget (why budgets 1 and 4 scored alike in the roster)."""
    fits = by_problem()[problem]
    starts = {f["table"]["id"][f["result"]["n_initial"]] for f in fits if f["result"]["n_inserted"]}
    assert len(starts) == 1  # the count at which the search began: the same in every fit
    start = starts.pop()
    first = fits[0]
    for fit in fits:
        assert fit["result"]["n_inserted"] == max(0, fit["budget"] - start)
        if fit["budget"] <= start:
            assert fit["table"] == first["table"] and fit["result"]["expression"] == first["result"]["expression"]
    assert fits[-1]["result"]["n_inserted"] > 100  # 128 is a search


def test_initial_count_reads_the_table_order():
    assert sr.initial_count([2, 1, 0, 5, 6]) == 3
    assert sr.initial_count([0]) == 1
    assert sr.initial_count([7, 6, 5, 4, 3, 2, 1, 0, 4, 5]) == 8  # the search's first ids may repeat
    assert sr.initial_count([7, 6, 5, 4, 3, 2, 1, 4, 5]) == 7  # id 0 printed no row (seen in real fits)
    assert sr.initial_count([1, 2]) == 1 and sr.initial_count([]) is None
    assert sr.initial_count([1.0, 0.0]) == 2 and sr.initial_count([0, float("nan")]) is None


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no SymRegg environment ($SRBF_HOME/envs/symregg or /tmp/env-symregg)")


@needs_env
def test_real_fits_through_the_worker(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # SymRegg's data file must not land here: the adapter uses its own folder
    X, y = toy(0)
    first, second = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 100, 0), (X, y, ("a", "b"), 20, 1)])
    for result in (first, second):
        assert result.status == "ok", result.error
        assert result.internals["reproducible"] is False
        assert result.internals["size_limit"] == {"maxSize": 15}
        assert result.internals["trajectory_by_evaluation"][-1]["expression"] == result.expression
    assert first.internals["knob"] == {"gen": 100} and second.internals["knob"] == {"gen": 20}
    evaluate(second.expression, ("a", "b"), np.asarray(X))  # written in the second problem's names
    X_np, y_np = np.asarray(X), np.asarray(y)
    loss = np.mean((evaluate(first.expression, ("u", "v"), X_np) - y_np) ** 2)
    assert loss == pytest.approx(first.internals["loss_train"], rel=1e-9)
    assert list(tmp_path.iterdir()) == []


@needs_env
def test_real_budgets_below_the_initial_count_do_not_search(tmp_path, monkeypatch):
    """One worker process, one problem: budgets 1 and 2 (below the initial e-graph of a
    two-variable problem, which holds at least x0, x1 and a parameter) give the same fit without
    a search step; 64 searches."""
    monkeypatch.chdir(tmp_path)
    X, y = toy(0)
    fits = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), budget, 0) for budget in (1, 2, 64)])
    assert all(r.status == "ok" for r in fits), [r.error for r in fits]
    one, two, many = (r.internals for r in fits)
    assert one["n_inserted"] == two["n_inserted"] == 0
    assert fits[0].expression == fits[1].expression and one["n_visited"] == two["n_visited"] == one["n_initial"]
    assert many["n_initial"] == one["n_initial"] and 0 < many["n_inserted"] < 64
    assert many["n_visited"] == many["n_initial"] + many["n_inserted"]
