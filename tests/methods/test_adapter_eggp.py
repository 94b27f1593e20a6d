"""The eggp adapter: its conversion checked on results recorded from eggp 2.2.2 (no eggp needed),
its options and config, and real fits through the Worker when eggp's environment exists
(``srbf methods install eggp``, or a development venv at /tmp/env-eggp)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recorded.adapter_checks import (
    adapter, cases, evaluate, method_python, numpy_code_is_faithful, r2, recording, toy, worker_fits,
)  # fmt: skip

NAME = "eggp"
eg = adapter(NAME)
_shared = eg._shared  # the helpers the adapter runs with
CASES = cases(NAME)


def mse(case, expression=None):
    X, y = np.asarray(case["X"]), np.asarray(case["y"])
    with np.errstate(all="ignore"):
        return float(np.mean((evaluate(expression or case["expression"], case["variables"], X) - y) ** 2))


def test_the_recording_covers_what_the_tests_below_need():
    assert sum(c["name"].endswith("best") for c in CASES) == 3 and len(CASES) >= 12


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert eg.to_infix(case["raw"]["display"], case["variables"]) == case["expression"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_converted_formula_has_the_loss_eggp_reported(case):
    assert mse(case) == pytest.approx(case["loss_train"], rel=1e-9)


def test_eggps_numpy_code_misreads_a_power_of_a_power():
    """eggp's NumPy code (which EGGP.predict evaluates) prints ``((a ^ b) ^ c)`` as ``a ** b ** c``;
    its predictions then miss the loss eggp reported, while the display text the adapter converts
    has it. The recording holds at least one such row."""
    unfaithful = [c for c in CASES if not numpy_code_is_faithful(c)]
    assert unfaithful
    for case in unfaithful:
        assert case["raw"]["numpy"].count("**") >= 2, case["raw"]["numpy"]  # a ** b ** c
        assert mse(case) == pytest.approx(case["loss_train"], rel=1e-9)
        assert "**" in case["expression"]


def test_display_text_conversion():
    v = ["u", "v", "w"]
    assert eg.to_infix("((x0 ^ -0.5) + Recip(ASin(x2)))", v) == "((u ** (-0.5)) + inv(asin(w)))"
    assert eg.to_infix("(7.073310381548471e-2 + Abs(Log(x1)))", v) == "(7.073310381548471e-2 + abs(log(v)))"
    assert eg.to_infix("((Exp(x1) ^ (Square(x0) ^ 3.0)) ^ x1)", v) == "((exp(v) ** (square(u) ** 3.0)) ** v)"
    assert eg.to_infix("(x10 * NaN)", [f"a{i}" for i in range(11)]) == "(a10 * nan)"
    assert eg.to_infix("(x1 - -Infinity)", v) == "(v - -inf)"
    assert eg.to_infix("((x1 + -5.5e-2) - 2.0)", v) == "((v + (-5.5e-2)) - 2.0)"
    # a negative constant is one leaf: (-0.5)**x, not -(0.5**x)
    square = eg.to_infix("(-0.5 ^ x0)", v)
    assert square == "((-0.5) ** u)" and evaluate(square, v, np.array([[2.0, 0.0, 0.0]]))[0] == 0.25
    with pytest.raises(ValueError, match="column 3"):
        eg.to_infix("(x3 + 1.0)", v)


def test_theta_reading():
    assert eg.parse_theta("7.07e-2;-1.25") == [0.0707, -1.25]
    assert eg.parse_theta("") == [] and eg.parse_theta(float("nan")) == []


def test_trace_gives_best_front_and_improvements():
    table = pd.DataFrame({
        "id": [0, 1, 2, 3, 4, 5],
        "Expression": ["1.5", "x0", "(x0 * 2.0)", "Log(x0)", "((x0 * 2.0) + 0.5)", "(x0 + x0)"],
        "Numpy": ["t[0]", "x[:, 0]", "(x[:, 0] * t[0])", "np.log(x[:, 0])", "((x[:, 0] * t[0]) + t[1])",
                  "(x[:, 0] + x[:, 0])"],
        "theta": ["1.5", "", "2.0", "", "2.0;0.5", ""],
        "size": [1, 1, 3, 2, 5, 3],
        "loss_train": ["4.0", "3.0", "1.0", "NA", "0.5", "1.0"],
    })  # fmt: skip
    rows = eg.read_rows(table)
    assert [r["id"] for r in rows] == [0, 1, 2, 4, 5]  # NA loss dropped
    assert eg.best_row(rows)["id"] == 4
    assert [r["id"] for r in eg.pareto(rows)] == [1, 2, 4]  # ties at size 3: the first id
    steps = eg.improvements(rows, population=2)
    assert [(s["evaluation"], s["generation"]) for s in steps] == [(0, 0), (1, 0), (2, 1), (4, 2)]


def test_operators_map_to_nonterminals():
    assert eg.nonterminals(["sin", "cos", "exp", "log", "sqrt", "add", "sub", "mul", "div"]) == (
        "sin,cos,exp,log,sqrt,add,sub,mul,div", [])
    assert eg.nonterminals(["pow", "inv", "neg", "atan2", "add"]) == ("power,recip,add", ["neg", "atan2"])
    with pytest.raises(ValueError, match="none of the operators"):
        eg.nonterminals(["neg"])


def test_options_over_defaults_and_budget():
    options = _shared.with_defaults({}, eg.OPTION_DEFAULTS)
    assert options["unary"] == ["sin", "cos", "exp", "log", "sqrt"] and options["binary"] == ["add", "sub", "mul", "div"]
    assert _shared.with_defaults({"params": {"maxSize": 25}}, eg.OPTION_DEFAULTS)["params"] == {"maxSize": 25}
    assert eg.generations(8.0) == 8
    with pytest.raises(ValueError, match="positive integer"):
        eg.generations(2.5)


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no eggp environment ($SRBF_HOME/envs/eggp or /tmp/env-eggp)")


@needs_env
def test_real_fit_through_the_worker():
    X, y = toy(0)
    (result,) = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 5, 0)])
    assert result.status == "ok", result.error
    internals = result.internals
    assert internals["reproducible"] is False and internals["knob"] == {"gen": 5}
    assert internals["size_limit"] == {"maxSize": 15}
    assert internals["nonterminals"] == "sin,cos,exp,log,sqrt,add,sub,mul,div"
    assert internals["n_visited"] > 100  # the initial population and five generations
    steps = internals["trajectory_by_evaluation"]
    assert steps[-1]["expression"] == result.expression and steps[-1]["generation"] <= 5
    assert [s["loss"] for s in steps] == sorted((s["loss"] for s in steps), reverse=True)
    assert internals["front"][-1]["expression"] == result.expression
    assert [t[1] for t in result.trajectory] == [result.expression]  # reported once, at the end
    X_np, y_np = np.asarray(X), np.asarray(y)
    assert np.mean((evaluate(result.expression, ("u", "v"), X_np) - y_np) ** 2) == pytest.approx(
        internals["loss_train"], rel=1e-9)
    assert r2(result.expression, ("u", "v"), X, y) > 0.5
