"""The method's stack as its own interpreter sees it (srbf.methods.stack), read from real
interpreters: srbf's own, a virtual environment holding other distributions, a roster method's
environment with a manifest, and an interpreter that cannot answer."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import srbf
from srbf.methods.roster import ROSTER
from srbf.methods.stack import method_package, method_stack


def install_record(site: Path, name: str, version: str) -> None:
    """What an installer leaves for a distribution: its .dist-info folder with METADATA."""
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def make_venv(root: Path) -> tuple[Path, Path]:
    """A virtual environment (no pip) and its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    return python, Path(site)


@pytest.fixture(scope="module")
def other_env(tmp_path_factory):
    """A virtual environment with NumPy 1.0.0 and gplearn 0.4.3 recorded, and no SciPy."""
    python, site = make_venv(tmp_path_factory.mktemp("other") / "env")
    install_record(site, "numpy", "1.0.0")
    install_record(site, "gplearn", "0.4.3")
    return python


def python_version_of(python) -> str:
    return subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip


def test_the_package_is_named_by_the_adapter_or_the_environment(tmp_path):
    mine = tmp_path / "mine.py"
    assert method_package("builtin", "linear", None) == "srbf"
    assert method_package("file", str(mine), "env:gplearn") == "gplearn"
    assert method_package("file", str(mine), "env:operon") == ROSTER["operon"].package == "pyoperon"
    assert method_package("file", str(ROSTER["hroch"].adapter_path), sys.executable) == ROSTER["hroch"].package
    assert method_package("file", str(mine), sys.executable) is None  # a user's method: srbf cannot tell
    assert method_package("srbench", str(tmp_path), None) is None


def test_a_builtin_under_srbfs_interpreter_is_answered_here():
    stack = method_stack("builtin", "linear", sys.executable)
    assert stack == {
        "method_python_version": platform.python_version(),
        "method_package": "srbf",
        "method_package_version": srbf.__version__,
        "method_numpy_version": metadata.version("numpy"),
        "method_scipy_version": metadata.version("scipy"),
        "method_lock_hash": method_stack("builtin", "linear", None)["method_lock_hash"],
    }


@pytest.mark.slow
def test_srbfs_own_lock_copy_gives_the_builtins_lock_hash(tmp_path, monkeypatch):
    """tools/install_from_lock.sh leaves requirements.lock in srbf's environment; a built-in's
    stack carries its sha256, and None where srbf was installed some other way."""
    import hashlib

    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert method_stack("builtin", "linear", None)["method_lock_hash"] is None
    assert method_stack("builtin", "linear", sys.executable)["method_lock_hash"] is None
    text = (Path(__file__).resolve().parents[2] / "requirements.lock").read_text()
    (tmp_path / "srbf-lock.txt").write_text(text)
    expected = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert method_stack("builtin", "linear", None)["method_lock_hash"] == expected
    assert method_stack("builtin", "linear", sys.executable)["method_lock_hash"] == expected


@pytest.mark.slow
def test_another_interpreter_reports_its_own_packages(other_env, tmp_path):
    adapter = tmp_path / "gp.py"
    stack = method_stack("file", str(ROSTER["gplearn"].adapter_path), str(other_env))
    assert stack["method_python_version"] == python_version_of(other_env)
    assert (stack["method_package"], stack["method_package_version"]) == ("gplearn", "0.4.3")
    assert stack["method_numpy_version"] == "1.0.0" != metadata.version("numpy")  # its NumPy, not srbf's
    assert stack["method_scipy_version"] == "not installed"  # the probe looked: not the "?" of a value not recorded
    builtin = method_stack("builtin", "linear", str(other_env))  # a built-in run by another interpreter
    assert builtin["method_package_version"] == srbf.__version__ and builtin["method_numpy_version"] == "1.0.0"
    assert method_stack("file", str(adapter), str(other_env))["method_package"] is None


@pytest.mark.slow
def test_a_roster_environment_gives_its_lock_hash_from_the_manifest(tmp_path, monkeypatch):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))
    python, site = make_venv(tmp_path / "home" / "envs" / "gplearn")
    install_record(site, "gplearn", "0.4.3")
    manifest = tmp_path / "home" / "envs" / "gplearn" / "srbf-manifest.json"
    manifest.write_text(json.dumps({"method": "gplearn", "lock_hash": "sha256:feedbeef"}))
    stack = method_stack("file", str(ROSTER["gplearn"].adapter_path), "env:gplearn")
    assert stack["method_lock_hash"] == "sha256:feedbeef" and stack["method_package_version"] == "0.4.3"
    manifest.write_text(json.dumps({"method": "gplearn"}))  # installed before locks were recorded
    assert method_stack("file", str(ROSTER["gplearn"].adapter_path), "env:gplearn")["method_lock_hash"] is None


def test_each_interpreter_is_asked_once_per_cache(tmp_path):
    log = tmp_path / "calls"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho called >> "{log}"\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    cache: dict = {}
    first = method_stack("builtin", "linear", str(wrapper), cache=cache)
    second = method_stack("builtin", "prior", str(wrapper), cache=cache)
    assert first == second and first["method_numpy_version"] == metadata.version("numpy")
    assert log.read_text().count("called") == 1
    method_stack("builtin", "linear", str(wrapper), env={"PYTHONPATH": str(tmp_path)}, cache=cache)
    assert log.read_text().count("called") == 2  # other environment variables: asked again


def test_an_interpreter_that_cannot_answer_leaves_the_stack_unknown(tmp_path):
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'not json'\nexit 3\n")
    broken.chmod(0o755)
    stack = method_stack("builtin", "linear", str(broken))
    assert stack["method_package"] == "srbf" and stack["method_package_version"] == srbf.__version__
    assert [stack[k] for k in ("method_python_version", "method_numpy_version", "method_scipy_version")] == [None] * 3


def test_the_probe_reads_the_same_versions_as_importlib_metadata():
    from srbf.methods.stack_probe import versions

    names = sorted({dist.metadata["Name"] for dist in metadata.distributions()})
    assert len(names) > 20  # srbf's environment: NumPy, SciPy, pandas, pytest, ...
    assert versions(names) == {name: metadata.version(name) for name in names}
    assert versions(["no-such-distribution"]) == {"no-such-distribution": None}


def test_only_the_configs_python_variables_reach_the_probe(other_env, tmp_path, monkeypatch):
    extra = tmp_path / "extra"
    install_record(extra, "gplearn", "9.9.9")  # found first on a PYTHONPATH naming this folder
    adapter = str(ROSTER["gplearn"].adapter_path)
    monkeypatch.setenv("PYTHONPATH", str(extra))  # srbf's own: a worker's clean environment drops it
    assert method_stack("file", adapter, str(other_env))["method_package_version"] == "0.4.3"
    configured = method_stack("file", adapter, str(other_env), env={"PYTHONPATH": str(extra)})
    assert configured["method_package_version"] == "9.9.9"  # the config's env: the worker gets it
