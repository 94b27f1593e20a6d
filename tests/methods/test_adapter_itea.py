"""The ITEA adapter: its conversion checked on models recorded from itea 1.1.2 (no itea needed; that
srbf's reading gives ITEA's own predictions is checked for every recorded case in
test_method_folders.py), its options, and real runs through the Worker when ITEA's environment
exists (``srbf methods install itea``, or a development venv at /tmp/env-itea)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, method_python, r2, recording, toy, worker_fits

NAME = "itea"
itea = adapter(NAME)
CASES = cases(NAME)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert itea.to_infix(case["raw"], case["variables"]) == case["expression"]


def test_the_recording_covers_every_transformation_function():
    built = next(c for c in CASES if c["name"] == "built: every transformation function")
    assert {name for name, _ in built["raw"]["terms"]} == set(itea.TRANSFORMATIONS)
    assert recording(NAME)["version"] == "1.1.2"


def test_conversion_spells_terms_powers_and_the_intercept():
    v = ["m_1", "theta"]
    data = {"terms": [["id", [2, 0]], ["sin", [1, -1]], ["log", [0, 0]], ["sqrt", [0, 1]]],
            "coefficients": [1.5, -0.25, 2.0, 0.0], "intercept": -3.0}  # fmt: skip
    # a zero weight drops its term, as ITEA's own to_str does; all-zero exponents are the constant 1
    assert itea.to_infix(data, v) == "1.5*(m_1**(2)) + (-0.25)*sin(m_1*theta**(-1)) + 2.0*log(1) + (-3.0)"


def test_a_malformed_model_is_a_clear_error():
    with pytest.raises(ValueError, match="2 terms and 1 coefficients"):
        itea.to_infix({"terms": [["id", [1]], ["id", [1]]], "coefficients": [1.0], "intercept": 0.0}, ["x"])
    with pytest.raises(ValueError, match="no srbf spelling for transformation function 'erf'"):
        itea.to_infix({"terms": [["erf", [1]]], "coefficients": [1.0], "intercept": 0.0}, ["x"])
    with pytest.raises(ValueError, match="expression uses column 1, the problem has 1"):
        itea.to_infix({"terms": [["id", [0, 1]]], "coefficients": [1.0], "intercept": 0.0}, ["x"])


def test_transformation_functions_and_their_derivatives():
    tfuncs, tfuncs_dx, missing = itea.transformations({})
    assert list(tfuncs) == ["id", "sin", "cos", "exp", "log", "sqrt"] and list(tfuncs_dx) == list(tfuncs)
    assert missing == []
    _, _, missing = itea.transformations({"unary": ["tanh", "erf"], "binary": ["add", "div", "pow", "max"]})
    assert missing == ["erf", "pow", "max"]  # add and div are what an IT expression is built of
    x, h = np.linspace(0.2, 1.4, 7), 1e-6
    for name, (function, derivative) in itea.TRANSFORMATIONS.items():  # each derivative is its function's
        numeric = (function(x + h) - function(x - h)) / (2 * h)
        assert np.allclose(derivative(x), numeric, rtol=1e-5, atol=1e-6), name


def test_budget_is_generations():
    assert itea.generations(None) == 100 and itea.generations(16) == 16
    with pytest.raises(ValueError, match="positive integer"):
        itea.generations(2.5)


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no ITEA environment ($SRBF_HOME/envs/itea or /tmp/env-itea)")


@needs_env
def test_real_fits_through_the_worker_are_reproducible():
    X, y = toy(0, n=48)
    first, again = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 8, 0), (X, y, ("u", "v"), 8, 0)])
    for result in (first, again):
        assert result.status == "ok", result.error
    assert first.expression == again.expression
    assert first.trajectory == [] and first.internals["generations_run"] == 8
    assert r2(first.expression, ("u", "v"), X, y) > 0.99  # x0**2 + x1 is one IT expression
