"""The HROCH adapter: its conversion checked on models recorded from HROCH 1.4.12 (no HROCH needed),
its options and config, and a real run through the Worker when HROCH's environment exists
(``srbf methods install hroch``, or a development venv at /tmp/env-hroch)."""

from __future__ import annotations

import pytest

from recorded.adapter_checks import adapter, cases, method_python, r2, toy, worker_fits

NAME = "hroch"
hr = adapter(NAME)
_shared = hr._shared  # the helpers the adapter runs with
CASES = cases(NAME)
MATH = {"nop": 0.01, "add": 1.0, "sub": 1.0, "mul": 1.0, "div": 0.1, "sq2": 0.05, "pow": 0.001, "exp": 0.001,
        "log": 0.001, "sqrt": 0.1, "sin": 0.005, "cos": 0.005, "tan": 0.001, "asin": 0.001, "acos": 0.001,
        "atan": 0.001, "sinh": 0.001, "cosh": 0.001, "tanh": 0.001}  # HROCH 1.4.12's SymbolicSolver.MATH


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    raw = case["raw"]
    assert hr.to_infix(raw["representation"], raw["coefficients"], case["variables"]) == case["expression"]


def test_protected_division_and_analytic_quotient_are_rewritten():
    for instruction in ("pdiv", "aq"):
        case = next(c for c in CASES if c["name"].startswith(instruction))
        assert f"{instruction}(" in case["raw"]["representation"]
        assert f"{instruction}(" not in case["expression"]


def test_conversion_substitutes_constants_and_names():
    v = ["m_1", "theta"]
    assert hr.to_infix("((x0*c0)+(x1-c1))", [2.5, -0.125], v) == "((m_1*2.5)+(theta-(-0.125)))"
    assert hr.to_infix("pdiv(x0,pdiv(c0,x1))", [3.0], v) == \
        "(m_1/sqrt(1e-08 + ((3.0/sqrt(1e-08 + (theta)**2)))**2))"  # fmt: skip
    assert hr.to_infix("aq((x0+x1),x1)", [], v) == "((m_1+theta)/sqrt(1 + (theta)**2))"
    assert hr.complexity("((x0*c0)+sin(x1))") == 6


def test_operator_set_uses_hrochs_own_math_weights():
    weights, missing = hr.problem({}, MATH)
    assert weights == {"nop": 0.01, "sin": 0.005, "cos": 0.005, "exp": 0.001, "log": 0.001, "sqrt": 0.1,
                       "add": 1.0, "sub": 1.0, "mul": 1.0, "div": 0.1}  # fmt: skip
    assert missing == ()
    weights, missing = hr.problem({"unary": ["neg", "inv", "square", "abs", "atanh"], "binary": ["add"]}, MATH)
    assert weights == {"nop": 0.01, "inv": 0.001, "minv": 0.001, "sq2": 0.05, "abs": 0.001, "add": 1.0}
    assert missing == ("atanh",)


def test_budget_is_iterations_with_hrochs_clock_off():
    assert hr.limits(1000, "iterations") == {"iter_limit": 1000, "time_limit": 0}
    assert hr.limits(2.5, "seconds") == {"iter_limit": 0, "time_limit": 2.5}
    assert hr.limits(None, "iterations") == {"iter_limit": 0, "time_limit": 5.0}  # HROCH's own default
    with pytest.raises(ValueError, match="iterations"):
        hr.limits(2.5, "iterations")


def test_options_over_defaults():
    assert _shared.with_defaults({}, hr.OPTION_DEFAULTS)["budget_unit"] == "iterations"


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no HROCH environment ($SRBF_HOME/envs/hroch or /tmp/env-hroch)")


@needs_env
def test_real_fits_through_the_worker():
    X, y = toy(0)
    problems = [(X, y, ("u", "v"), 4000, 0), (X, y, ("u", "v"), 4000, 0), (X, y, ("u", "v"), 4000, 1)]
    first, again, other = worker_fits(NAME, PYTHON, problems)
    for result in (first, again, other):
        assert result.status == "ok", result.error
    assert first.expression == again.expression  # seed 0 is not HROCH's "seed from the clock"
    assert first.internals["random_state"] == 1 and other.internals["random_state"] == 2
    assert first.internals["size_limit"] == {"min_size": 32, "max_size": 32, "const_size": 8}
    assert first.internals["front"][0]["expression"] == first.expression
    assert r2(first.expression, ("u", "v"), X, y) > 0.9
