"""The gplearn adapter: its conversion checked on programs recorded from gplearn 0.4.3 (no gplearn
needed), its options and config, and a real run through the Worker when gplearn's environment
exists (``srbf methods install gplearn``, or a development venv at /tmp/env-gplearn)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, check_case, evaluate, method_python, r2, toy, worker_fits

NAME = "gplearn"
gp = adapter(NAME)
_shared = gp._shared  # the helpers the adapter runs with
CASES = cases(NAME)
FITTED = [c for c in CASES if "guard_rows" not in c]
BUILT = [c for c in CASES if "guard_rows" in c]


def test_the_recording_covers_what_the_tests_below_need():
    assert len(FITTED) >= 3 and len(BUILT) == 1


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert gp.to_infix(case["raw"], case["variables"]) == case["expression"]


@pytest.mark.parametrize("case", FITTED, ids=[c["name"] for c in FITTED])
def test_no_guard_is_active_on_the_fitted_programs_support_points(case):
    """So test_method_folders.py's comparison with gplearn's predictions is exact for them."""
    assert case["internals"]["protected_guard_points"] == 0
    assert gp.guard_points(case["raw"], np.asarray(case["X"])) == 0


def test_protected_functions_differ_only_where_a_guard_is_active():
    (case,) = BUILT
    raw, X = case["raw"], np.asarray(case["X"])
    guard = gp.guard_mask(raw, X)
    assert set(np.flatnonzero(guard)) == set(case["guard_rows"]) == set(range(6))
    check_case(NAME, case, rtol=1e-9, rows=~guard)  # exact off the guards, support and fresh points
    ours = evaluate(case["expression"], case["variables"], X)
    theirs = np.asarray(case["predictions"])
    assert not np.allclose(ours[guard], theirs[guard], equal_nan=True)  # the documented difference
    for name in ("div", "log", "inv", "sqrt", "neg", "abs", "max", "min", "tan", "sin", "cos"):
        assert name in raw  # the built program exercises every function gplearn has


def test_program_printout_rounds_constants_but_the_conversion_does_not():
    case = next(c for c in FITTED if any(isinstance(t, float) for t in c["raw"]))
    constant = next(t for t in case["raw"] if isinstance(t, float))
    assert repr(constant) in case["expression"]  # full precision in srbf's formula
    assert f"{constant:.3f}" in case["printout"] and repr(constant) not in case["printout"]  # gplearn's own


@pytest.mark.parametrize("case", FITTED, ids=[c["name"] for c in FITTED])
def test_trajectory_is_one_program_per_generation_ending_in_the_answer(case):
    trajectory = case["trajectory"]
    assert 1 <= len(trajectory) <= case["budget"]
    assert trajectory[-1] == case["expression"]
    for expression in trajectory:
        evaluate(expression, case["variables"], np.asarray(case["X"]))


def test_conversion_spells_every_function():
    v = ["a", "b"]
    assert gp.to_infix(["add", "mul", 0, 0, 1], v) == "((a*a) + b)"
    assert gp.to_infix(["div", 0, -0.5], v) == "(a/(-0.5))"
    assert gp.to_infix(["sqrt", 0], v) == "sqrt(abs(a))"
    assert gp.to_infix(["log", "neg", 1], v) == "log(abs((-b)))"
    assert gp.to_infix(["inv", 0], v) == "(1/a)"
    assert gp.to_infix(["sig", 0], v) == "(1/(1 + exp(-a)))"
    assert gp.to_infix([0.1], v) == "0.1"
    with pytest.raises(ValueError, match="no srbf spelling"):
        gp.to_infix(["foo", 0], v)


def test_operator_set_is_the_benchmarks_restricted_to_gplearns_functions():
    used, missing = gp.function_set({})
    assert used == ("sin", "cos", "log", "sqrt", "add", "sub", "mul", "div")
    assert missing == ("exp",)
    used, missing = gp.function_set({"unary": ["neg", "inv", "cbrt"], "binary": ["add", "max", "pow"]})
    assert used == ("neg", "inv", "add", "max") and missing == ("cbrt", "pow")
    with pytest.raises(ValueError, match="binary operator"):
        gp.function_set({"binary": ["pow"]})


def test_options_over_defaults_and_budget():
    assert _shared.with_defaults({"params": {"population_size": 100}}, gp.OPTION_DEFAULTS)["params"] == {"population_size": 100}
    assert _shared.with_defaults(None, gp.OPTION_DEFAULTS) == {"params": {}}
    assert gp.generations(None) == 20 and gp.generations(3) == 3 and gp.generations(4.0) == 4
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="generations"):
            gp.generations(bad)


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no gplearn environment ($SRBF_HOME/envs/gplearn or /tmp/env-gplearn)")


@needs_env
@pytest.mark.slow
def test_real_fits_through_the_worker():
    X, y = toy(0)
    options = {"params": {"population_size": 300}}  # smaller than the default, to keep the test short
    problems = [(X, y, ("u", "v"), 3, 5), (X, y, ("u", "v"), 3, 5), (X, y, ("u", "v"), 1, 6)]
    first, again, short = worker_fits(NAME, PYTHON, problems, options=options)
    for result in (first, again, short):
        assert result.status == "ok", result.error
        evaluate(result.expression, ("u", "v"), X)
    assert first.expression == again.expression  # the seed fixes the run
    assert len(first.trajectory) >= 1 and first.trajectory[-1][1] == first.expression
    assert [t for t, _ in first.trajectory] == sorted(t for t, _ in first.trajectory)
    assert len(short.trajectory) == 1
    internals = first.internals
    assert internals["size_limit"]["init_depth"] == [2, 6]
    assert internals["operators_unavailable"] == ["exp"]
    assert internals["generations_run"] <= 3
    assert internals["protected_guard_points"] == gp.guard_points(internals["program_tokens"], X)
    assert r2(first.expression, ("u", "v"), X, y) > 0.5
