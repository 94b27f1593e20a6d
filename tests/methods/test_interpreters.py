"""A method that needs another Python than srbf's: the requirement read from method.yaml, the
interpreters found (uv's discovery, pyenv's versions, python3.X on PATH) and the one-line failure
when none fits. The interpreters used are real ones on this machine (skipped where absent)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from srbf.methods import envs, interpreters, roster
from srbf.methods.install import InstallError, install

PYENV = Path.home() / ".pyenv" / "versions"
PY312 = PYENV / "3.12.1" / "bin" / "python3.12"
PY313 = PYENV / "3.13.0" / "bin" / "python3.13"
OWN = "%d.%d.%d" % sys.version_info[:3]


def test_a_requirement_reads_as_version_clauses():
    assert interpreters.parse_requirement(">=3.12, <3.14") == ((">=", (3, 12)), ("<", (3, 14)))
    assert interpreters.admits(">=3.12", "3.12.1") and interpreters.admits(">=3.12", (3, 13))
    assert not interpreters.admits(">=3.12", "3.11.7") and not interpreters.admits(">=3.11, <3.13", "3.13.0")
    assert interpreters.admits("==3.11", "3.11.9") and not interpreters.admits("!=3.11", "3.11.9")
    for bad in ("3.12", ">=3", ">=3.12,", "~=3.12", ""):
        with pytest.raises(interpreters.PythonSpecError, match="not a Python requirement"):
            interpreters.parse_requirement(bad)


def test_flash_ansr_declares_the_python_it_needs():
    assert roster.get("flash_ansr").python == ">=3.12" and roster.get("gplearn").python == ""


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No interpreter on PATH and an empty pyenv root: only what a test puts there is found."""
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    return bare


@pytest.mark.skipif(not PY312.exists(), reason=f"no Python 3.12 at {PY312}")
def test_a_pyenv_version_is_found(nowhere, tmp_path):
    folder = tmp_path / "pyenv" / "versions" / "3.12.1" / "bin"
    folder.mkdir(parents=True)
    (folder / "python3").symlink_to(PY312)
    python, version = interpreters.find_python("m", ">=3.12", uv=None)
    assert python == str(folder / "python3") and version.startswith("3.12.")


@pytest.mark.skipif(not (PY312.exists() and PY313.exists()), reason="needs Python 3.12 and 3.13 under ~/.pyenv")
def test_the_lowest_fitting_version_on_path_is_taken(nowhere):
    (nowhere / "python3.13").symlink_to(PY313)
    (nowhere / "python3.12").symlink_to(PY312)
    assert interpreters.find_python("m", ">=3.12", uv=None) == (str(nowhere / "python3.12"), "3.12.1")
    assert interpreters.find_python("m", ">=3.13", uv=None) == (str(nowhere / "python3.13"), "3.13.0")


def test_srbfs_own_interpreter_is_taken_when_it_fits(nowhere):
    assert interpreters.find_python("m", f">={sys.version_info[0]}.{sys.version_info[1]}") == (sys.executable, OWN)


def test_no_fitting_interpreter_is_one_line_naming_what_is_needed_and_where_it_looked(nowhere, tmp_path):
    with pytest.raises(interpreters.PythonNotFound) as caught:
        interpreters.find_python("flash_ansr", ">=3.99", uv=None)
    message = str(caught.value)
    assert len(message.splitlines()) == 1
    assert message.startswith(f"flash_ansr needs Python >=3.99 (its method.yaml, field python) and none was found: "
                              f"srbf runs {OWN}; looked at uv python find, pyenv ({tmp_path / 'pyenv' / 'versions'}) "
                              "and python3.X on PATH, found: none; install one")  # fmt: skip


def test_install_stops_before_creating_anything_when_no_python_fits(nowhere, tmp_path, monkeypatch):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))
    spec = replace(roster.get("gplearn"), name="needs_future", python=">=3.99")
    with pytest.raises(InstallError) as caught:
        install(spec, echo=lambda line: None)
    assert caught.value.step == "python" and "needs_future needs Python >=3.99" in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1 and not envs.env_dir("needs_future").exists()


def test_a_python_given_that_does_not_fit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))
    spec = replace(roster.get("gplearn"), name="needs_future", python=">=3.99")
    with pytest.raises(InstallError, match=rf"needs_future needs Python >=3.99 .*; --python {sys.executable} is {OWN}$"):
        install(spec, base_python=sys.executable, echo=lambda line: None)
    with pytest.raises(InstallError, match="--python /no/such/python is not an interpreter that runs"):
        install(spec, base_python="/no/such/python", echo=lambda line: None)
    assert not envs.env_dir("needs_future").exists()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="srbf's own Python fits flash_ansr")
def test_the_command_fails_in_one_line_when_no_python_fits(nowhere, tmp_path, monkeypatch, capsys):
    from srbf.cli import main

    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(tmp_path / "uv-pythons"))  # uv's own installs: none
    assert main(["methods", "install", "flash_ansr"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("srbf: install failed: flash_ansr needs Python >=3.12 (its method.yaml, field python)")
    assert not envs.env_dir("flash_ansr").exists()
