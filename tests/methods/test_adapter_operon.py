"""The Operon adapter: its conversion checked on trees recorded from pyoperon 0.6.2 (no pyoperon
needed), its options and config, and a real run through the Worker when Operon's environment
exists (``srbf methods install operon``, or a development venv at /tmp/env-operon)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, evaluate, method_python, r2, toy, worker_fits

NAME = "operon"
op = adapter(NAME)
_shared = op._shared  # the helpers the adapter runs with
CASES = cases(NAME)
FITTED = [c for c in CASES if "trajectory" in c]
# Operon evaluates in float32; srbf evaluates the same float32 coefficients in float64
FLOAT32 = {"rtol": 1e-5, "atol_scale": 1e-5}


def test_the_recording_covers_what_the_tests_below_need():
    assert len(FITTED) == 3 and any(c["name"].startswith("built") for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert op.to_infix(case["raw"], case["variables"]) == case["expression"]


def test_every_node_kind_is_read():
    (built,) = [c for c in CASES if c["name"].startswith("built")]
    kinds = {node[0] for node in built["raw"]}
    assert {"aq", "logabs", "powabs", "log1p", "sqrtabs", "fmin", "fmax", "square", "cbrt", "tanh", "pow", "asin",
            "acos", "atan", "sinh", "cosh", "tan", "exp", "log", "sqrt", "abs", "sin", "cos", "+", "-", "*",
            "/"} <= kinds  # fmt: skip
    arities = {(node[0], node[1]) for node in built["raw"]}
    assert {("-", 3), ("/", 3), ("-", 1), ("/", 1), ("*", 3)} <= arities  # n-ary and unary forms


def test_operons_printout_uses_one_based_columns_and_six_decimals():
    case = FITTED[0]
    assert "X1" in case["printout"] and "X0" not in case["printout"]
    assert "u" in case["expression"] and "X1" not in case["expression"]


def test_the_front_is_recorded_for_two_objectives():
    case = next(c for c in FITTED if "front" in c["name"])
    assert len(case["front"]) > 1
    fronts = [c for c in CASES if c["name"].startswith("three variables, front model")]
    assert [c["expression"] for c in fronts] == case["front"]


@pytest.mark.parametrize("case", FITTED, ids=[c["name"] for c in FITTED])
def test_trajectory_has_one_scaled_model_per_generation(case):
    trajectory = case["trajectory"]
    assert 1 <= len(trajectory) <= case["budget"] + 1  # the initial population and each generation
    X, y = np.asarray(case["X"]), np.asarray(case["y"])
    for expression in trajectory:
        evaluate(expression, case["variables"], X)
    last = r2(trajectory[-1], case["variables"], X, y)
    assert last >= r2(trajectory[0], case["variables"], X, y) - 1e-6  # the best model never gets worse


@pytest.mark.parametrize("case", FITTED, ids=[c["name"] for c in FITTED])
def test_trajectory_ends_on_the_returned_model(case):
    # each entry is scaled as the wrapper scales its final model (float32 fit, float32 constants),
    # so with one objective the last entry is the returned expression, character for character;
    # with two the wrapper returns the front's minimum-description-length model instead
    last = case["trajectory"][-1]
    if case["options"].get("params", {}).get("objectives"):
        assert last in case["front"]
    else:
        assert last == case["expression"]


def test_linear_scaling_is_appended_as_the_wrapper_appends_it():
    f = [["variable", 0, 0.5, 0]]
    # scale then offset, both as float32 node values: (offset + (scale*f))
    expected = "((-0.20000000298023224) + (0.10000000149011612*(0.5*a)))"
    assert op.to_infix(op.scaled_nodes(f, 0.1, -0.2), ["a"]) == expected
    assert op.scaled_nodes(f, 1.0, 0.0) == f  # exactly 1 and exactly 0 are left out, as the wrapper does
    assert op.to_infix(op.scaled_nodes(f, 1.0, 2.0), ["a"]) == "(2.0 + (0.5*a))"
    # a float32 rounding-noise intercept (a fit of the true formula) is Operon's and stays
    noisy = op.scaled_nodes(f, 2.0, 1.6053212913881121e-06)
    assert op.to_infix(noisy, ["a"]) == "(1.6053212448241538e-06 + (2.0*(0.5*a)))"
    # the scaling nodes of a recorded model are the wrapper's: stripped and re-appended, the same
    raw = FITTED[0]["raw"]
    (_, _, scale, _), _, (_, _, offset, _), _ = raw[-4:]
    assert op.scaled_nodes(raw[:-4], scale, offset) == raw


def test_conversion_reads_operons_postfix_layout():
    v = ["a", "b"]
    # postfix, a node's first argument is the subtree just before it: [b-term, a-term, -] is a - b
    nodes = [["variable", 0, 2.0, 1], ["variable", 0, 0.5, 0], ["-", 2, 1.0, None]]
    assert op.to_infix(nodes, v) == "((0.5*a) - (2.0*b))"
    assert op.to_infix([["constant", 0, -1.5, None]], v) == "(-1.5)"
    with pytest.raises(ValueError, match="no srbf spelling"):
        op.to_infix([["variable", 0, 1.0, 0], ["floor", 1, 1.0, None]], v)


def test_operator_set_maps_to_operon_symbols():
    used, missing = op.allowed_symbols({})
    assert used == ("sin", "cos", "exp", "log", "sqrt", "add", "sub", "mul", "div") and missing == ()
    used, missing = op.allowed_symbols({"unary": ["square", "neg"], "binary": ["add", "max", "min"]})
    assert used == ("square", "add", "fmax", "fmin") and missing == ("neg",)
    used, _ = op.allowed_symbols({"unary": [], "binary": ["max"]}, swapped_min_max=True)
    assert used == ("fmin",)  # pyoperon 0.6.2: the symbol fmin makes the nodes that compute max
    with pytest.raises(ValueError, match="binary operator"):
        op.allowed_symbols({"binary": ["atan2"]})


def test_options_over_defaults_and_budget():
    assert _shared.with_defaults({}, op.OPTION_DEFAULTS)["budget_unit"] == "generations"
    assert op.budget_value(None, "generations") == 1000 and op.budget_value(None, "evaluations") == 1_000_000
    with pytest.raises(ValueError, match="positive integer"):
        op.budget_value(0.5, "generations")


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no Operon environment ($SRBF_HOME/envs/operon or /tmp/env-operon)")


@needs_env
@pytest.mark.slow
def test_real_fits_through_the_worker():
    X, y = toy(0)
    problems = [(X, y, ("u", "v"), 10, 5), (X, y, ("u", "v"), 10, 5)]
    first, again = worker_fits(NAME, PYTHON, problems)
    for result in (first, again):
        assert result.status == "ok", result.error
    assert first.expression == again.expression  # the seed fixes the run
    assert 2 <= len(first.trajectory) <= 11
    assert first.trajectory[-1][1] == first.expression  # one objective: the trajectory ends on model_
    internals = first.internals
    assert internals["size_limit"] == {"max_length": 50, "max_depth": 10}
    assert internals["generations_run"] == 10 and internals["objectives"] == ["r2"]
    assert len(internals["front"]) == 1 and internals["front"][0]["expression"] == first.expression
    assert r2(first.expression, ("u", "v"), X, y) > 0.99


@needs_env
@pytest.mark.slow
def test_real_min_and_max_mean_what_they_say():
    X, y = toy(1)
    y = np.maximum(X[:, 0], X[:, 1])  # max(u, v), which only a max node writes exactly
    (result,) = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 30, 2)],
                            options={"unary": [], "binary": ["add", "mul", "max"]})  # fmt: skip
    assert result.status == "ok", result.error
    assert result.internals["operators"] == ["add", "mul", "fmin"]  # pyoperon 0.6.2's swapped symbol
    assert "min(" not in result.expression
