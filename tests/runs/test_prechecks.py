"""A roster method that cannot run says so in one line from `check` and `run`, before any store.

PySR runs on the real environment as this machine has it: not installed, or installed without
Julia; either way the pre-check (doctor's) answers, not PySR's installer."""

from __future__ import annotations

import shutil

import pytest

from srbf.cli import main
from srbf.methods import envs

CONFIG = """experiment: pre
catalogs: [nguyen]
problems: [Nguyen-1]
sampling: {{draws: 1}}
budgets: [1]
methods: [{methods}]
results: {results}
"""


def write(tmp_path, methods):
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG.format(methods=methods, results=tmp_path / "results"))
    return str(path)


def one_line_error(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    return out, err.strip()


def test_a_missing_environment_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))  # no method environments there
    path = write(tmp_path, "gplearn, deap_gp")
    _, err = one_line_error(capsys, "run", "-c", path)
    assert err == ("srbf: error: gplearn is not installed: run srbf methods install gplearn; "
                   "deap_gp is not installed: run srbf methods install deap_gp")
    assert not (tmp_path / "results").exists()
    assert main(["check", "-c", path]) == 1
    out = capsys.readouterr().out
    assert "FAILED  start worker  gplearn is not installed: run srbf methods install gplearn" in out
    assert not (tmp_path / "results").exists()


@pytest.mark.skipif(shutil.which("julia") is not None, reason="Julia is on PATH here")
def test_pysr_without_julia_is_one_line_from_check_and_run(tmp_path, capsys):
    path = write(tmp_path, "pysr")
    installed = envs.env_python("pysr").exists()
    expected = "pysr needs Julia: `julia` is not on PATH" if installed else "pysr is not installed: run srbf methods install pysr"
    _, err = one_line_error(capsys, "run", "-c", path)
    assert err.startswith("srbf: error: " + expected)
    assert not (tmp_path / "results").exists()
    assert main(["check", "-c", path]) == 1
    out = capsys.readouterr().out
    assert f"FAILED  start worker  {expected}" in out and "Traceback" not in out
    assert not (tmp_path / "results").exists()
