"""PySR's Julia: where the pre-check finds it (PYTHON_JULIAPKG_EXE, PATH), the one line that says
what is missing and how to provide it (the same in docs/methods.md), and `srbf methods install`
ending with that pre-check."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from srbf.cli import main
from srbf.methods import doctor, envs, install, isolation, roster

DOCS = Path(__file__).resolve().parents[2] / "docs" / "methods.md"
PYSR = roster.ROSTER["pysr"]


@pytest.fixture
def bare(tmp_path, monkeypatch):
    """An empty srbf home, a PATH without julia and PYTHON_JULIAPKG_EXE unset."""
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("PYTHON_JULIAPKG_EXE", raising=False)
    (tmp_path / "bin").mkdir()
    return tmp_path


def executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\necho 'julia version 1.11.0'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def installed_pysr() -> None:
    """pysr's environment as an install leaves it (a python and a manifest), without PyPI."""
    python = envs.env_python("pysr")
    python.parent.mkdir(parents=True)
    executable(python).write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    install.write_manifest(envs.manifest_path("pysr"), {"method": "pysr", "installed_version": "2.7.2"})


def julia_line(problems: list[str]) -> str:
    (line,) = [p for p in problems if p.startswith("pysr needs Julia")]
    return line


def test_without_julia_the_line_says_where_srbf_looked_and_how_to_provide_it_as_the_docs_quote_it(bare):
    line = julia_line(doctor.precheck(PYSR))
    assert "`julia` is not on PATH or in pysr's environment, and PYTHON_JULIAPKG_EXE is not set" in line
    assert line.endswith("; to provide it, put `julia` on PATH or set PYTHON_JULIAPKG_EXE to the Julia executable")
    assert PYSR.needs_hint in line and "reachable" not in line  # no claim about this machine it did not check
    assert DOCS.read_text().count(line) == 2  # the doctor's example and the install's, word for word


def test_julia_named_by_the_variable_or_on_path_is_found(bare, monkeypatch):
    julia = executable(bare / "elsewhere-julia")
    monkeypatch.setenv("PYTHON_JULIAPKG_EXE", str(julia))
    assert not any("Julia" in p for p in doctor.precheck(PYSR))
    assert doctor.find_external("julia", "pysr", "PYTHON_JULIAPKG_EXE") == str(julia)
    monkeypatch.delenv("PYTHON_JULIAPKG_EXE")
    executable(bare / "bin" / "julia")
    assert doctor.find_external("julia", "pysr", "PYTHON_JULIAPKG_EXE") == str(bare / "bin" / "julia")


def test_a_variable_naming_no_executable_is_an_error_not_a_fallback_to_path(bare, monkeypatch):
    executable(bare / "bin" / "julia")
    monkeypatch.setenv("PYTHON_JULIAPKG_EXE", str(bare / "no-such-julia"))
    line = julia_line(doctor.precheck(PYSR))
    assert f"PYTHON_JULIAPKG_EXE={bare / 'no-such-julia'} is not an executable file" in line
    assert line.endswith("set PYTHON_JULIAPKG_EXE to the Julia executable, or unset it and put `julia` on PATH")


def test_the_worker_receives_the_variable_from_the_users_environment(bare, monkeypatch):
    monkeypatch.setenv("PYTHON_JULIAPKG_EXE", "/opt/julia/bin/julia")
    assert isolation.clean_environment({}, bare)["PYTHON_JULIAPKG_EXE"] == "/opt/julia/bin/julia"


def test_install_ends_with_the_precheck_and_says_what_is_missing(bare, monkeypatch, capsys):
    installed_pysr()
    assert main(["methods", "install", "pysr"]) == 0  # the environment is there
    out = capsys.readouterr().out.splitlines()
    start = out.index("[pysr] installed, but it cannot run yet:")
    assert out[start + 1] == "    " + julia_line(doctor.precheck(PYSR))
    assert out[start + 2] == "[pysr] once provided, `srbf methods check pysr` fits a toy problem with it"
    monkeypatch.setenv("PYTHON_JULIAPKG_EXE", str(executable(bare / "julia")))
    assert main(["methods", "install", "pysr"]) == 0
    assert "[pysr] ready: `srbf methods check pysr` fits a toy problem with it" in capsys.readouterr().out
