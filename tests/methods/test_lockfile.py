"""The committed method locks: reading them, their sync with the roster, diffs, the install plan
from a lock, and (with uv and PyPI) a real install of gplearn from its lock and with --latest."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from srbf.cli import main
from srbf.methods import envs, install, lockfile, roster
from srbf.methods.interpreters import admits
from srbf.methods.roster import MethodSpec

PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
HASH_A = "sha256:" + "a" * 64
HASH_B = "sha256:" + "b" * 64


@pytest.fixture
def home(tmp_path, monkeypatch):
    root = tmp_path / "srbf-home"
    monkeypatch.setenv("SRBF_HOME", str(root))
    return root


# --- reading a lock -----------------------------------------------------------------------------


def test_the_committed_gplearn_lock_reads_back():
    path = roster.get("gplearn").lock_path("3.11")
    assert path == Path(lockfile.__file__).parent / "gplearn" / "lock-py3.11.txt"
    packages = lockfile.parse_lock(path.read_text(), str(path))
    assert packages["gplearn"].version == "0.4.3"
    assert {"numpy", "scipy", "scikit-learn", "joblib"} <= set(packages)
    assert all(p.hashes and all(h.startswith("sha256:") and len(h) == 71 for h in p.hashes) for p in packages.values())
    assert lockfile.read_inputs(path.read_text()) == ["numpy", "gplearn==0.4.3"]


def test_every_roster_method_has_a_lock_per_python_in_sync_with_the_roster():
    """A roster edit without `srbf methods lock NAME` fails here: the lock's inputs are the roster's."""
    for spec in roster.ROSTER.values():
        for python in [v for v in ("3.11", "3.12", "3.13") if not spec.python or admits(spec.python, v)]:
            path = spec.lock_path(python)
            assert path.is_file(), f"no lock {path.name}; run `srbf methods lock {spec.name} --python-version {python}`"
            text = path.read_text()
            assert lockfile.read_inputs(text) == lockfile.lock_inputs(spec), path.name
            assert f"on Python {python}," in text.splitlines()[0]
            locked = lockfile.parse_lock(text, path.name)
            assert locked[lockfile.canonical_name(spec.package)].version == spec.version, path.name
            assert "numpy" in locked
    methods = Path(lockfile.__file__).parent
    assert sorted(p.relative_to(methods).as_posix() for p in methods.glob("*/lock-py*.txt")) == sorted(
        f"{spec.name}/lock-py{python}.txt" for spec in roster.ROSTER.values() for python in ("3.11", "3.12", "3.13")
        if not spec.python or admits(spec.python, python)
    )


def test_parse_lock_reads_markers_comments_and_canonical_names():
    text = (
        "# a header\n\n"
        f"Scikit_Learn==1.5.2 \\\n    --hash={HASH_A} \\\n    --hash={HASH_B}\n    # via gplearn\n"
        f"numpy==2.2.6 ; python_full_version < '3.12' \\\n    --hash={HASH_A}\n"
        f"zope.interface==7.0 --hash={HASH_B}  # a trailing comment\n"
    )
    packages = lockfile.parse_lock(text)
    assert list(packages) == ["scikit-learn", "numpy", "zope-interface"]
    assert packages["scikit-learn"] == lockfile.LockedPackage("Scikit_Learn", "1.5.2", (HASH_A, HASH_B))
    assert packages["numpy"].version == "2.2.6" and packages["zope-interface"].hashes == (HASH_B,)
    assert lockfile.versions(packages) == {"scikit-learn": "1.5.2", "numpy": "2.2.6", "zope-interface": "7.0"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("numpy==2.2.6\n", "x.txt, line 1: numpy==2.2.6 has no --hash"),
        (f"# c\nnumpy>=2 \\\n    --hash={HASH_A}\n", "x.txt, line 2: not a pinned requirement with hashes: 'numpy>=2 "),
        ("numpy==2.2.6 --hash=md5:abc\n", "x.txt, line 1: not a pinned requirement with hashes"),
        (f"numpy==2.2.6 --hash={HASH_A}\nNumPy==2.2.7 --hash={HASH_B}\n", "x.txt, line 2: NumPy is pinned twice"),
        (f"numpy==2.2.6 --no-deps --hash={HASH_A}\n", "x.txt, line 1: not a pinned requirement with hashes"),
    ],
)
def test_parse_lock_names_the_file_and_line_of_a_bad_entry(text, message):
    with pytest.raises(lockfile.LockError) as caught:
        lockfile.parse_lock(text, "x.txt")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_lock_hash_is_what_sha256sum_prints():
    path = roster.get("hroch").lock_path("3.11")
    expected = hashlib.sha256(path.read_bytes()).hexdigest()
    if shutil.which("sha256sum"):
        import subprocess

        expected = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True).stdout.split()[0]
    assert lockfile.lock_hash(path.read_text()) == f"sha256:{expected}"


# --- diffs --------------------------------------------------------------------------------------


def test_diff_packages_added_removed_changed_by_canonical_name():
    old = {"numpy": "2.1.0", "scikit_learn": "1.5.2", "six": "1.16.0", "joblib": "1.4.2"}
    new = {"NumPy": "2.2.0", "scikit-learn": "1.5.2", "joblib": "1.4.2", "narwhals": "2.0", "cloudpickle": "3.1"}
    diff = lockfile.diff_packages(old, new)
    assert diff.changed == {"numpy": ("2.1.0", "2.2.0")}
    assert diff.added == {"narwhals": "2.0", "cloudpickle": "3.1"} and diff.removed == {"six": "1.16.0"}
    assert diff.lines() == ["~ numpy 2.1.0 -> 2.2.0", "+ cloudpickle 3.1", "+ narwhals 2.0", "- six 1.16.0"]
    assert diff and not lockfile.diff_packages(old, dict(old))


def test_diff_of_two_committed_locks():
    """gplearn's and hroch's locks share NumPy; hroch pins scikit-learn below 1.6, gplearn has no cap."""
    gplearn = lockfile.versions(lockfile.parse_lock(roster.get("gplearn").lock_path("3.11").read_text()))
    hroch = lockfile.versions(lockfile.parse_lock(roster.get("hroch").lock_path("3.11").read_text()))
    diff = lockfile.diff_packages(gplearn, hroch)
    assert "hroch" in diff.added and "gplearn" in diff.removed and "numpy" not in diff.added
    old_sklearn, new_sklearn = diff.changed["scikit-learn"]
    assert int(new_sklearn.split(".")[1]) < 6 <= int(old_sklearn.split(".")[1])


def test_subset_keeps_the_locked_lines_of_the_pre_install_packages():
    text = roster.get("rils_rols").lock_path("3.11").read_text()
    part = lockfile.parse_lock(lockfile.subset(text, ["pybind11", "setuptools"]))
    whole = lockfile.parse_lock(text)
    assert part == {"pybind11": whole["pybind11"], "setuptools": whole["setuptools"]}
    with pytest.raises(lockfile.LockError, match="r.txt: six is not in the lock"):
        lockfile.subset(text, ["six"], "r.txt")


# --- the install plan ---------------------------------------------------------------------------


def test_install_steps_from_a_lock_with_uv_and_with_pip(tmp_path):
    lock = tmp_path / install.ENV_LOCK
    rils = roster.get("rils_rols")
    pre, main_step = install.install_steps(rils, "/env/bin/python", uv="/bin/uv", lock=lock)
    assert pre.args == ("/bin/uv", "pip", "install", "--python", "/env/bin/python", "--require-hashes", "--no-deps",
                        "-r", str(tmp_path / install.PRE_LOCK))  # fmt: skip
    assert main_step.args == ("/bin/uv", "pip", "sync", "--python", "/env/bin/python", "--require-hashes", str(lock),
                              "--no-build-isolation")  # fmt: skip
    (only,) = install.install_steps(roster.get("ffx"), "/env/bin/python", lock=lock)
    assert only.args == ("/env/bin/python", "-m", "pip", "install", "--no-input", "--require-hashes", "--no-deps",
                         "-r", str(lock))  # fmt: skip
    (fresh,) = install.install_steps(roster.get("ffx"), "/env/bin/python", uv="/bin/uv")
    assert fresh.args[:5] == ("/bin/uv", "pip", "install", "--python", "/env/bin/python")
    assert fresh.args[5:] == ("numpy", "ffx==2.1.0", "six")


def test_check_installed_names_what_differs_from_the_lock():
    text = f"numpy==2.2.6 --hash={HASH_A}\nsix==1.17.0 --hash={HASH_B}\n"
    install.check_installed("m", text, {"NumPy": "2.2.6", "six": "1.17.0", "pip": "24.0"})
    expected = r"m: the environment does not match its lock: numpy 2.3.0 \(locked 2.2.6\), six missing \(locked 1.17.0\)"
    with pytest.raises(install.InstallError, match=expected):
        install.check_installed("m", text, {"numpy": "2.3.0"})


def test_choose_lock_takes_the_committed_lock_or_says_there_is_none(tmp_path, monkeypatch):
    spec = roster.get("gplearn")
    lines = []
    used = install.choose_lock(spec, Path(sys.executable), None, False, lines.append)
    assert used.source == "committed" and used.file == f"gplearn/lock-py{PYTHON}.txt"
    assert used.hash == lockfile.lock_hash(roster.get("gplearn").lock_path(PYTHON).read_text()) and not lines
    spec = replace(spec, folder=tmp_path)
    assert install.choose_lock(spec, Path(sys.executable), None, False, lines.append) == install.LockUse("none")
    assert lines == [f"[gplearn] note: no lock for Python {PYTHON} ({tmp_path / f'lock-py{PYTHON}.txt'}); "
                     f"resolving afresh (`srbf methods lock gplearn --python-version {PYTHON}` makes one)"]  # fmt: skip
    (tmp_path / f"lock-py{PYTHON}.txt").write_text("gplearn>=0.4\n")
    with pytest.raises(install.InstallError, match=f"lock-py{PYTHON}.txt, line 1: not a pinned requirement"):
        install.choose_lock(spec, Path(sys.executable), None, False, lines.append)


def test_the_manifest_carries_the_lock_and_env_stack_reads_it(home):
    spec = roster.get("hroch")
    text = roster.get("hroch").lock_path("3.11").read_text()
    used = install.LockUse("committed", text, "hroch/lock-py3.11.txt")
    freeze = "HROCH==1.4.12\nnumpy==2.3.5\nscikit_learn==1.5.2\nscipy==1.16.3\n"
    manifest = install.make_manifest(spec, python_version="3.11.7", freeze=freeze, steps=[], seconds=1.0,
                                     disk_bytes=1, licence_accepted=False, installer="uv", lock=used)  # fmt: skip
    assert manifest["lock_hash"] == lockfile.lock_hash(text) and manifest["lock_file"] == "hroch/lock-py3.11.txt"
    assert manifest["installer"] == "uv" and manifest["lock_source"] == "committed"
    envs.env_dir("hroch").mkdir(parents=True)
    install.write_manifest(envs.manifest_path("hroch"), manifest)
    expected = {"env": "hroch", "lock_hash": lockfile.lock_hash(text), "package": "HROCH", "package_version": "1.4.12",
                "numpy": "2.3.5", "scipy": "1.16.3", "python": "3.11.7"}  # fmt: skip
    assert envs.env_stack("hroch") == expected and envs.env_stack("env:hroch") == expected
    assert envs.env_stack("ffx") is None
    old = envs.stack_of({"method": "ffx", "package": "ffx", "installed_version": "2.1.0",
                         "packages": {"numpy": "1.26"}})  # installed before locks
    assert old["lock_hash"] is None and old["scipy"] is None and old["numpy"] == "1.26"


def test_doctor_notes_an_environment_not_installed_from_the_shipped_lock():
    from srbf.methods.doctor import lock_notes

    spec = roster.get("gplearn")
    shipped = lockfile.lock_hash(roster.get("gplearn").lock_path("3.12").read_text())
    assert lock_notes(spec, {"python": "3.12.1", "lock_hash": shipped, "lock_source": "committed"}) == []
    assert lock_notes(spec, {"python": "3.12.1", "lock_hash": "sha256:0", "lock_source": "latest"}) == [
        "note: installed with --latest, not from the shipped lock gplearn/lock-py3.12.txt; "
        "`srbf methods install gplearn --force` reinstalls from it"
    ]
    assert "installed without a lock" in lock_notes(spec, {"python": "3.12.1"})[0]
    assert lock_notes(spec, {"python": "3.10.4"}) == []  # no lock for that Python: nothing to compare


# --- the CLI ------------------------------------------------------------------------------------


def test_methods_lock_without_uv_is_a_user_error(monkeypatch, capsys):
    monkeypatch.setenv("SRBF_INSTALLER", "pip")
    assert main(["methods", "lock", "gplearn"]) == 2
    assert "srbf methods lock needs uv on PATH" in capsys.readouterr().err
    assert main(["methods", "lock", "gplern"]) == 2
    monkeypatch.delenv("SRBF_INSTALLER")
    if lockfile.find_uv():
        assert main(["methods", "lock", "gplearn", "--python-version", "312"]) == 2
        assert "--python-version '312': write a Python version as X.Y" in capsys.readouterr().err


def test_install_latest_and_lock_parse():
    from srbf.cli import build_parser

    args = build_parser().parse_args(["methods", "install", "gplearn", "--latest"])
    assert args.latest and not args.force
    args = build_parser().parse_args(["methods", "lock", "all", "--python-version", "3.11", "3.13"])
    assert args.names == ["all"] and args.python_version == ["3.11", "3.13"]


# --- with uv and PyPI ---------------------------------------------------------------------------


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


needs_uv_and_pypi = pytest.mark.skipif(
    shutil.which("uv") is None or not _pypi_reachable(),
    reason="installs gplearn's environment from PyPI with uv: needs uv on PATH and PyPI reachable",
)


@needs_uv_and_pypi
def test_install_from_the_lock_installs_exactly_the_locked_versions(home, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("SRBF_INSTALLER", raising=False)
    locked = lockfile.parse_lock(roster.get("gplearn").lock_path(PYTHON).read_text())
    manifest = install.install(roster.get("gplearn"), echo=lambda line: None)
    listed = install.run_captured([str(envs.env_python("gplearn")), "-c", install.FREEZE_CODE]).stdout
    installed = {lockfile.canonical_name(k): v for k, v in install.parse_freeze(listed).items()}
    assert installed == lockfile.versions(locked)  # uv pip sync: the lock, nothing more
    assert manifest["lock_hash"] == lockfile.lock_hash(roster.get("gplearn").lock_path(PYTHON).read_text())
    assert manifest["lock_source"] == "committed" and manifest["installer"] == "uv"
    assert (envs.env_dir("gplearn") / install.ENV_LOCK).read_text() == roster.get("gplearn").lock_path(PYTHON).read_text()

    # --latest resolves afresh and shows the changes against a lock that is out of date
    stale = roster.get("gplearn").lock_path(PYTHON).read_text()
    stale = stale.replace(f"joblib=={locked['joblib'].version} ", "joblib==1.0.0 ")
    monkeypatch.setattr(MethodSpec, "lock_path", lambda spec, python: tmp_path / f"lock-py{python}.txt")
    (tmp_path / f"lock-py{PYTHON}.txt").write_text(stale)
    assert main(["methods", "install", "gplearn", "--latest"]) == 0
    out = capsys.readouterr().out
    assert "resolving afresh with uv pip compile" in out and " from the lock gplearn/lock-py" in out
    assert "    ~ joblib 1.0.0 -> " in out
    manifest = json.loads(envs.manifest_path("gplearn").read_text())
    assert manifest["lock_source"] == "latest"
    assert any(line.startswith("~ joblib 1.0.0 -> ") for line in manifest["lock_diff"])
    assert manifest["lock_hash"] == lockfile.lock_hash((envs.env_dir("gplearn") / install.ENV_LOCK).read_text())
