"""Failures say why, early: a misspelt pass-through parameter stops ``srbf check`` and ``srbf run`` in
one line before any store exists, and a run's failed fits end its summary (and ``srbf status``)
grouped by reason."""

from __future__ import annotations

import contextlib
import io
import sys

import pytest
import yaml

from driver_helpers import swiss_config
from srbf.cli import main as srbf
from srbf.methods.envs import env_python
from srbf.methods.param_names import param_problems
from srbf.runs.summary import failure_groups


def call(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = srbf([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


needs_gplearn = pytest.mark.skipif(not env_python("gplearn").exists(), reason="no gplearn environment (srbf methods install gplearn)")


@needs_gplearn
@pytest.mark.slow
def test_a_misspelt_params_key_fails_check_and_run_in_one_line_before_any_store(tmp_path):
    config = tmp_path / "gp.yaml"
    config.write_text(yaml.safe_dump({
        "experiment": "gp", "catalogs": ["nguyen"], "limit": 2, "results": str(tmp_path / "results"),
        "sampling": {"n_support": 32, "n_validation": 32, "draws": 1},
        "methods": [{"name": "gplearn", "adapter": "gplearn", "options": {"params": {"populaton_size": 5}}, "budgets": [1]}],
    }))  # fmt: skip
    expected = ("gplearn: options.params.populaton_size is not a parameter of gplearn.genetic.SymbolicRegressor; "
                "did you mean 'population_size'?")  # fmt: skip
    code, out, _ = call("check", "-c", config)
    assert code == 1
    failed = [line for line in out.splitlines() if "FAILED" in line]
    assert failed == [f"  FAILED  start worker  {expected}"]
    assert "Traceback" not in out and out.splitlines()[-1] == "check failed at step 'start worker'"
    code, out, err = call("run", "-c", config, "--quiet")
    assert (code, err.strip()) == (2, f"srbf: error: {expected}")
    assert not (tmp_path / "results").exists()


@needs_gplearn
@pytest.mark.slow
def test_a_params_key_the_estimator_takes_passes():
    python = str(env_python("gplearn"))
    constraints = {"params": {"type": "mapping", "signature": "gplearn.genetic:SymbolicRegressor"}}
    assert param_problems("gplearn", constraints, {"params": {"population_size": 5, "tournament_size": 3}}, python) == []


@pytest.mark.slow
def test_the_signature_is_read_in_the_interpreter_given():
    constraints = {"params": {"type": "mapping", "signature": "argparse:ArgumentParser"}}
    [line] = param_problems("m", constraints, {"params": {"prog": "x", "descriptoin": "y"}}, sys.executable)
    assert line == "m: options.params.descriptoin is not a parameter of argparse.ArgumentParser; did you mean 'description'?"
    # a callable taking **kwargs, or one its interpreter cannot import, is not second-guessed
    for target in ("logging:basicConfig", "no_such_module_here:Thing"):
        assert param_problems("m", {"params": {"signature": target}}, {"params": {"anything": 1}}, sys.executable) == []


def test_failure_groups_count_by_method_status_and_first_line_of_the_reason():
    groups = failure_groups([
        ("a", "failed", "ValueError: boom\nTraceback ...", "s/p1 draw 0, budget 1"),
        ("a", "failed", "ValueError: boom\nother tail", "s/p1 draw 1, budget 1"),
        ("a", "timeout", None, "s/p2 draw 0, budget 1"),
        ("b", "failed", "ValueError: boom", "s/p3 draw 0, budget 1"),
    ])  # fmt: skip
    assert [(g.method, g.status, g.reason, g.count, g.first) for g in groups] == [
        ("a", "failed", "ValueError: boom", 2, "s/p1 draw 0, budget 1"),
        ("a", "timeout", "", 1, "s/p2 draw 0, budget 1"),
        ("b", "failed", "ValueError: boom", 1, "s/p3 draw 0, budget 1"),
    ]


@pytest.mark.slow
def test_a_run_ends_with_its_failures_grouped_and_status_shows_them(tmp_path):
    config = swiss_config(tmp_path, n=3, options={"mode": "raise"}, draws=2, workers=1)  # one order of arrival
    code, out, _ = call("run", "-c", config, "--quiet")
    assert code == 0
    line = "  swiss: 2 failed (first: faults/p01 draw 0, budget 1): ValueError: boom"
    assert "why 2 fit(s) were not ok (count, status, first fit, first line of the reason):" in out
    assert line in out.splitlines()
    for argv in (("status", "-c", config), ("status", "--results", tmp_path / "results")):
        code, out, _ = call(*argv)
        assert code == 0 and line in out.splitlines(), argv


TAKES_ANY_KEYWORD = {"itea"}


@pytest.mark.slow
def test_every_declared_estimator_reads_in_its_installed_environment():
    from srbf.methods.param_names import accepted_parameters
    from srbf.methods.roster import ROSTER

    declared = {name: spec.options["params"]["signature"] for name, spec in ROSTER.items()
                if "signature" in (spec.options.get("params") or {})}  # fmt: skip
    assert {"gplearn", "bingo", "operon"} <= set(declared)
    installed = {name: target for name, target in declared.items() if env_python(name).exists()}
    if not installed:
        pytest.skip("no roster environment with a declared estimator is installed")
    for name, target in installed.items():
        read = accepted_parameters(str(env_python(name)), target)
        # named parameters, no **kwargs, except ITEA 1.1.2's ITEA_regressor, which also takes
        # **kwargs: a misspelt key of its params is then not caught before the fit (param_names)
        assert read is not None and read[1] == (name in TAKES_ANY_KEYWORD), (name, target)
        assert set(ROSTER[name].options["params"].get("forbidden", ())) <= read[0], name  # what srbf sets is theirs
