"""The committed lock (requirements.lock) is in sync with pyproject.toml, and the check that says
so fails when it should: a dependency added without `make lock`, a pin outside its bound."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "lock.py"


def check(pyproject: Path, lock: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), "--check", "--pyproject", str(pyproject), "--lock", str(lock)],
                          capture_output=True, text=True)


@pytest.mark.slow
def test_the_committed_lock_matches_pyproject():
    result = check(ROOT / "pyproject.toml", ROOT / "requirements.lock")
    assert result.returncode == 0, result.stderr


def test_a_dependency_added_without_relocking_is_caught(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    text = (ROOT / "pyproject.toml").read_text()
    pyproject.write_text(text.replace('"numpy>=1.24",', '"numpy>=1.24",\n    "duckdb>=1.0",'))
    result = check(pyproject, ROOT / "requirements.lock")
    assert result.returncode == 1
    assert "other dependencies" in result.stderr and "make lock" in result.stderr


@pytest.mark.slow
def test_a_pin_outside_the_declared_bound_is_caught(tmp_path):
    lock = tmp_path / "requirements.lock"
    text = (ROOT / "requirements.lock").read_text()
    numpy_line = next(line for line in text.splitlines() if line.startswith("numpy=="))
    lock.write_text(text.replace(numpy_line, "numpy==1.20.0 \\"))
    result = check(ROOT / "pyproject.toml", lock)
    assert result.returncode == 1 and "numpy==1.20.0 does not satisfy 'numpy>=1.24'" in result.stderr


def test_print_gives_one_hash_checked_entry():
    result = subprocess.run([sys.executable, str(TOOL), "--print", "uv"], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines[0].startswith("uv==")
    assert all(line.strip().startswith("--hash=sha256:") for line in lines[1:]) and len(lines) > 1
    assert not result.stdout.rstrip().endswith("\\")
