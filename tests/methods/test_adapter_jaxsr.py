"""The jaxsr adapter: its conversion checked on models recorded from jaxsr 0.3.0 (no jaxsr or JAX
needed), its options and config, and real fits through the Worker when jaxsr's environment
exists (``srbf methods install jaxsr``, or a development venv at /tmp/env-jaxsr)."""

from __future__ import annotations


import pytest

from recorded.adapter_checks import adapter, cases, method_python, r2, toy, worker_fits

NAME = "jaxsr"
jx = adapter(NAME)
_shared = jx._shared  # the helpers the adapter runs with
CASES = cases(NAME)
V = ("p", "q", "r")


def test_the_recording_covers_what_the_tests_below_need():
    kinds = {t[0] for c in CASES for t in c["raw"]["terms"]}
    assert {"constant", "polynomial", "interaction", "transcendental"} <= kinds
    functions = {t[1].get("func_name") for c in CASES for t in c["raw"]["terms"]} - {None}
    assert {"log", "sin", "cos", "tanh"} <= functions


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    terms = [jx.term_infix(kind, config, name, case["variables"]) for kind, config, name in case["raw"]["terms"]]
    assert jx.model_infix(case["raw"]["coefficients"], terms) == case["expression"]


def test_selected_model_and_front_are_recorded():
    selected = [c for c in CASES if c["name"].endswith("selected")]
    assert len(selected) == 3
    for case in selected:
        assert case["reports"] == [case["expression"]]  # jaxsr has no incumbent during its search
        assert case["front"] and len(case["front"]) <= case["budget"]


def test_terms_from_their_descriptions():
    assert jx.term_infix("constant", {}, "1", V) == "1"
    assert jx.term_infix("linear", {"feature_index": 1}, "q", V) == "q"
    assert jx.term_infix("polynomial", {"feature_index": 2, "degree": 3}, "r^3", V) == "r**3"
    assert jx.term_infix("interaction", {"feature_indices": [0, 2], "order": 2}, "p*r", V) == "p*r"
    assert jx.term_infix("transcendental", {"feature_index": 0, "func_name": "inv"}, "1/p", V) == "(1 / p)"
    assert jx.term_infix("ratio", {"numerator_index": 0, "denominator_index": 1}, "p/q", V) == "(p / q)"
    assert jx.term_infix("custom", {}, "p*q*r", V) == "(p*q*r)"  # anything else: jaxsr's own name
    assert jx.model_infix([2.5, -1.0, 0.5], ["1", "p**2", "sin(q)"]) == "2.5 + (-1.0)*p**2 + 0.5*sin(q)"
    assert jx.model_infix([], []) == "0"


def test_library_follows_the_vocabulary():
    products, functions, unavailable = jx.library_plan(["sin", "cos", "exp", "log", "sqrt", "add", "sub", "mul", "div"])
    assert products and functions == ["log", "exp", "sqrt", "inv", "sin", "cos"] and unavailable == ["sub"]
    products, functions, unavailable = jx.library_plan(["add", "tanh", "asin"])
    assert not products and functions == ["tanh"] and unavailable == ["asin"]


def test_options_over_defaults_and_budget():
    options = _shared.with_defaults({}, jx.OPTION_DEFAULTS)
    assert options["x64"] is True and options["warmup"] is True and options["params"] == {}
    assert _shared.with_defaults({"params": {"strategy": "exhaustive"}}, jx.OPTION_DEFAULTS)["params"] == {"strategy": "exhaustive"}
    with pytest.raises(ValueError, match="positive integer"):
        jx.max_terms_of(0)


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no jaxsr environment ($SRBF_HOME/envs/jaxsr or /tmp/env-jaxsr)")


@needs_env
def test_real_fit_through_the_worker_recovers_a_sum_of_terms():
    X, y = toy(0)  # y = x0**2 + x1: two terms of the library
    (result,) = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 3, 0)], options={"x64": True})
    assert result.status == "ok", result.error
    assert result.internals["x64"] is True and result.internals["knob"] == {"max_terms": 3}
    assert sorted(result.internals["selected_terms"]) == ["u^2", "v"]
    assert r2(result.expression, ("u", "v"), X, y) > 1 - 1e-12
    assert [t[1] for t in result.trajectory] == [result.expression]
