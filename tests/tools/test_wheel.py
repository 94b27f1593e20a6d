"""srbf as a user gets it: the wheel is built, installed into a fresh environment (srbf's
dependencies from requirements.lock, hashed), and `srbf methods list` and `srbf check -c` on a
shipped config run from outside the source tree, so the method folders (method.yaml, locks) and
the shipped configs must be package data. Skipped only when the build backend (setuptools) cannot
be fetched; uv's cache makes a rerun take seconds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UV = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
OFFLINE = ("failed to fetch", "connect", "network", "dns", "resolve", "no solution found", "offline")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(UV is None, reason="needs uv (the dev extra installs it)")]


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin directory of a fresh environment holding the built wheel and srbf's locked stack."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # a clean copy, so the build leaves nothing in the checkout
    tracked = run("git", "ls-files", "-z", cwd=REPO).stdout.split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    built = run(UV, "build", "--wheel", "-o", str(root / "dist"), str(source), cwd=root)
    if built.returncode != 0:
        if any(word in built.stderr.lower() for word in OFFLINE):
            pytest.skip(f"the build backend could not be fetched: {built.stderr.strip().splitlines()[-1]}")
        pytest.fail(f"uv build failed:\n{built.stderr}")
    (wheel,) = (root / "dist").glob("srbf-*.whl")
    venv = root / "venv"
    for step in ([UV, "venv", "-q", "-p", sys.executable, str(venv)],
                 [UV, "pip", "install", "-q", "-p", str(venv), "--require-hashes", "-r", str(REPO / "requirements.lock")],
                 [UV, "pip", "install", "-q", "-p", str(venv), "--no-deps", str(wheel)]):  # fmt: skip
        done = run(*step, cwd=root)
        assert done.returncode == 0, f"{' '.join(step)}:\n{done.stderr}"
    return venv / "bin"


def test_the_installed_wheel_lists_the_roster_and_checks_a_shipped_config(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["SRBF_HOME"] = str(tmp_path / "home")  # no method environments: the listing still works
    listed = run(str(installed / "srbf"), "methods", "list", "--json", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)["methods"]}
    assert {"gplearn", "operon", "deap_gp"} <= set(rows)
    assert rows["gplearn"]["version"] == "0.4.3" and rows["gplearn"]["adapter"] is True
    assert rows["gplearn"]["lock"] and "site-packages/srbf/methods/gplearn/lock-py" in rows["gplearn"]["lock"]
    assert rows["gplearn"]["config_provenance"] == "upstream_default"

    checked = run(str(installed / "srbf"), "check", "-c", "quickstart", cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    where = run(str(installed / "python"), "-c", "import srbf; print(srbf.__file__)", cwd=tmp_path, env=env)
    assert "site-packages" in where.stdout and str(REPO) not in where.stdout  # the wheel's srbf, not the checkout's


def test_the_installed_wheel_ships_the_explorers_page(installed, tmp_path):
    code = ("from importlib import resources; from srbf.site.build import ASSETS, plotly_bundle; "
            "print(all(resources.files('srbf.site').joinpath('assets', n).is_file() for n in ASSETS), "
            "plotly_bundle().is_file())")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    shipped = run(str(installed / "python"), "-c", code, cwd=tmp_path, env=env)
    assert shipped.stdout.split() == ["True", "True"], shipped.stdout + shipped.stderr


def test_the_installed_wheel_ships_type_hints_and_the_api(installed, tmp_path):
    code = ("from importlib import resources; import srbf; "
            "print(resources.files('srbf').joinpath('py.typed').is_file(), srbf.open.__module__)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    shipped = run(str(installed / "python"), "-c", code, cwd=tmp_path, env=env)
    assert shipped.stdout.split() == ["True", "srbf.api.results"], shipped.stdout + shipped.stderr
