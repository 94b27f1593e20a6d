"""The FFX adapter: its conversion checked on models recorded from ffx 2.1.0 (no ffx needed), its
options and config, and a real run through the Worker when FFX's environment exists
(``srbf methods install ffx``, or a development venv at /tmp/env-ffx)."""

from __future__ import annotations

import numpy as np
import pytest

from recorded.adapter_checks import (
    adapter, cases, check_case, check_config, check_imports, method_python, r2, recording, toy, worker_fits,
)  # fmt: skip

NAME = "ffx"
ffx = adapter(NAME)
CASES = cases(NAME)


def test_recording_comes_from_the_pinned_release():
    assert recording(NAME)["version"] == "2.1.0"
    assert sum("(returned)" in c["name"] for c in CASES) == 2


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert ffx.to_infix(case["raw"], case["variables"]) == case["expression"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_converted_formula_reproduces_ffxs_predictions(case):
    check_case(NAME, case, rtol=1e-9)


def test_every_basis_kind_is_read():
    built = next(c for c in CASES if c["name"].startswith("built: every basis"))
    found = set()

    def walk(base):
        found.add((base["kind"], base.get("op")))
        for key in ("base", "left", "right"):
            if key in base:
                walk(base[key])

    for _, base in built["raw"]["numerator"] + built["raw"]["denominator"]:
        walk(base)
    ops = {op for kind, op in found if kind == "operator"}
    assert ops == {ffx.OP_ABS, ffx.OP_MAX0, ffx.OP_MIN0, ffx.OP_LOG10, ffx.OP_GTH, ffx.OP_LTH}
    assert {("simple", None), ("product", None)} <= found
    assert built["raw"]["denominator"]


def test_hinge_thresholds_keep_their_precision():
    built = next(c for c in CASES if c["name"].startswith("built: every basis"))
    assert "1.2345678" in built["expression"] and "1.2345678" not in built["printout"]  # FFX prints 1.23


def test_conversion_spells_each_basis():
    v = ["a", "b"]
    model = {"kind": "ffx", "offset": 1.0, "denominator": [],
             "numerator": [[2.0, {"kind": "simple", "column": 1, "exponent": -0.5}],
                           [-3.0, {"kind": "operator", "op": ffx.OP_GTH, "threshold": 0.5,
                                   "base": {"kind": "simple", "column": 0, "exponent": 1.0}}]]}  # fmt: skip
    assert ffx.to_infix(model, v) == "1.0 + 2.0*(b**(-0.5)) + (-3.0)*max(0, 0.5 - a)"
    model["denominator"] = [[0.5, {"kind": "simple", "column": 0, "exponent": 1.0}]]
    assert ffx.to_infix(model, v) == "(1.0 + 2.0*(b**(-0.5)) + (-3.0)*max(0, 0.5 - a))/(1.0 + 0.5*a)"
    assert ffx.to_infix({"kind": "constant", "value": float("nan")}, v) == "inf"  # FFX predicts inf


def test_it_takes_no_options():
    with pytest.raises(ValueError, match="takes no options"):
        ffx.run(np.zeros((3, 1)), np.zeros(3), budget=1, seed=0, variables=("x",), options={"a": 1}, report=None)


def test_adapter_file_imports_only_numpy_and_ffx():
    check_imports(NAME, "ffx")


def test_config_runs_the_adapter_at_upstream_defaults():
    data = check_config(NAME)
    assert data["budgets"] == [1]


# --- the real package ----------------------------------------------------------------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no FFX environment ($SRBF_HOME/envs/ffx or /tmp/env-ffx)")


@needs_env
def test_real_fit_through_the_worker():
    X, y = toy(0, n=48)
    (result,) = worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 1, 0)])
    assert result.status == "ok", result.error
    assert result.trajectory == []  # FFX has no search to report on
    internals = result.internals
    front = internals["front"]
    assert front and front[-1]["expression"] == result.expression
    assert [f["num_bases"] for f in front] == sorted(f["num_bases"] for f in front)
    assert r2(result.expression, ("u", "v"), X, y) > 0.99
