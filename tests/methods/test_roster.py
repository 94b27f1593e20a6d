"""The method roster, per-method environments, manifests, install/doctor and `srbf methods` (no network).

Installs run with a fake interpreter that "creates" an environment as a wrapper around the test's
own Python; the doctor runs the real Worker. The one test that installs from PyPI runs only with
SRBF_NETWORK_TESTS=1.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from srbf.cli import build_parser, main
from srbf.runs.config import ConfigError, config_from_dict
from recorded.adapter_checks import installed
from srbf.methods import doctor, envs, install, roster
from srbf.methods.roster import MethodSpec


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty srbf data directory."""
    root = tmp_path / "srbf-home"
    monkeypatch.setenv("SRBF_HOME", str(root))
    return root


@pytest.fixture
def unlocked_pip(tmp_path, monkeypatch):
    """Installs with pip and no committed locks: the fake interpreter below can act only as
    ``python -m venv``, and its environment holds no locked package (tests/methods/test_lockfile.py
    covers the locks)."""
    monkeypatch.setenv("SRBF_INSTALLER", "pip")
    monkeypatch.setattr(MethodSpec, "lock_path", lambda spec, python: tmp_path / "no-locks" / spec.name / f"lock-py{python}.txt")


def fake_env(name: str, *, manifest: bool = True) -> Path:
    """An 'installed' environment whose python is a wrapper around the running interpreter."""
    python = envs.env_python(name)
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    if manifest:
        install.write_manifest(envs.manifest_path(name), {"method": name, "installed_version": "1.0"})
    return python


def fake_base_python(tmp_path: Path) -> str:
    """An executable that acts like ``python -m venv ROOT`` by writing ROOT/bin/python (a wrapper)."""
    script = tmp_path / "fake-python"
    script.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        mkdir -p "$3/bin"
        printf '#!/bin/sh\\nexec "{sys.executable}" "$@"\\n' > "$3/bin/python"
        chmod +x "$3/bin/python"
        echo "created $3"
        """))
    script.chmod(0o755)
    return str(script)


def py_step(label: str, code: str, package: str = "pkg==1.0") -> install.Step:
    return install.Step(label, (sys.executable, "-c", code), package)


# --- the roster ---------------------------------------------------------------------------------


def test_roster_names_and_pins():
    assert roster.names() == ("bingo", "deap_gp", "eggp", "ffx", "flash_ansr", "gplearn", "hroch", "itea", "jaxsr", "operon", "pysr",
                              "qlattice", "rils_rols", "symregg")  # fmt: skip  (one folder each, alphabetical)
    for spec in roster.ROSTER.values():
        assert spec.pinned in spec.requirements, spec.name  # the method's own package is pinned
        assert spec.version and spec.version[0].isdigit()
        assert spec.adapter_path == Path(roster.__file__).parent / spec.name / "adapter.py"
        assert spec.adapter_path.is_file() and spec.lock_path("3.11") == spec.folder / "lock-py3.11.txt"
        assert spec.budget_knob and spec.trajectory
        assert spec.config_provenance == "upstream_default" and spec.run["budgets"]
        assert "numpy" not in " ".join(spec.requirements)  # numpy comes with every install step
    with pytest.raises(FrozenInstanceError):
        roster.get("gplearn").version = "0.0"  # type: ignore[misc]


def test_roster_records_carry_the_install_notes():
    assert roster.get("gplearn").version == "0.4.3"
    assert roster.get("operon").package == "pyoperon"
    rils = roster.get("rils_rols")
    assert rils.pre_install == (("pybind11", "setuptools"),) and "--no-build-isolation" in rils.pip_flags
    assert "academic" in roster.get("qlattice").licence and "--accept-licence" in roster.get("qlattice").licence
    assert roster.get("eggp").reproducible is False
    assert "six" in roster.get("ffx").requirements
    assert "scikit-learn<1.6" in roster.get("hroch").requirements
    assert roster.get("pysr").needs == ("julia",)
    assert roster.get("jaxsr").size_hint
    assert [s.licence is not None for s in roster.ROSTER.values()].count(True) == 1


def test_roster_lookup_errors():
    with pytest.raises(roster.UnknownMethod, match="did you mean 'gplearn'"):
        roster.get("gplern")
    with pytest.raises(roster.UnknownMethod, match="the roster: bingo, deap_gp, eggp"):
        roster.get("zzz")
    assert [s.name for s in roster.select("all")] == list(roster.names())
    assert roster.select("ffx") == [roster.get("ffx")]


def test_install_steps_pre_install_first_and_flags_on_the_main_step():
    steps = install.install_steps(roster.get("rils_rols"), "/env/bin/python")
    assert [s.args[5:] for s in steps] == [
        ("pybind11", "setuptools"),
        ("numpy", "rils-rols==1.6.7", "--no-build-isolation"),
    ]
    assert all(s.args[:5] == ("/env/bin/python", "-m", "pip", "install", "--no-input") for s in steps)
    assert steps[1].package == "rils-rols==1.6.7"
    (main_step,) = install.install_steps(roster.get("ffx"), "py")
    assert main_step.args[5:] == ("numpy", "ffx==2.1.0", "six")


# --- locations and python: env:NAME -------------------------------------------------------------


def test_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert envs.data_home() == tmp_path / "a"
    assert envs.env_dir("gplearn") == tmp_path / "a" / "envs" / "gplearn"
    monkeypatch.delenv("SRBF_HOME")
    assert envs.data_home() == tmp_path / "xdg" / "srbf"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert envs.data_home() == tmp_path / "h" / ".local" / "share" / "srbf"
    with pytest.raises(envs.EnvError, match="not a valid environment name"):
        envs.env_dir("../etc")


def test_resolve_python(home):
    assert envs.resolve_python("/usr/bin/python3") == "/usr/bin/python3"  # not an env spec: unchanged
    assert envs.resolve_python("python3") == "python3"
    with pytest.raises(envs.EnvError, match=r"^gplearn is not installed: run srbf methods install gplearn$"):
        envs.resolve_python("env:gplearn")
    with pytest.raises(envs.EnvError, match="names no environment"):
        envs.resolve_python("env:")
    with pytest.raises(envs.EnvError, match="not on the roster"):
        envs.resolve_python("env:mystery")
    fake_env("gplearn", manifest=False)
    with pytest.raises(envs.EnvError, match=r"did not finish .* --force"):
        envs.resolve_python("env:gplearn")
    install.write_manifest(envs.manifest_path("gplearn"), {"method": "gplearn"})
    assert envs.resolve_python("env:gplearn") == str(envs.env_python("gplearn"))
    assert envs.resolve_python(" env: gplearn ") == str(envs.env_python("gplearn"))
    assert installed("gplearn") and not installed("ffx")
    fake_env("mine", manifest=False)  # a hand-made env off the roster needs no manifest
    assert envs.resolve_python("env:mine").endswith("envs/mine/bin/python")
    assert isinstance(envs.EnvError("x"), ValueError)  # config validation may catch ValueError


# --- manifest ------------------------------------------------------------------------------------

FREEZE = """\
gplearn==0.4.3
joblib==1.4.2
numpy==2.1.0
scikit_learn==1.5.2
mypkg @ file:///tmp/mypkg
pip==24.0
"""


def test_manifest_records_versions_time_and_size(tmp_path):
    spec = roster.get("gplearn")
    manifest = install.make_manifest(spec, python_version="3.11.7", freeze=FREEZE, steps=[{"step": "x", "seconds": 1.5}],
                                  seconds=12.345, disk_bytes=1234, licence_accepted=False)  # fmt: skip
    assert manifest["method"] == "gplearn" and manifest["pinned"] == "0.4.3"
    assert manifest["installed_version"] == "0.4.3"
    assert manifest["packages"]["numpy"] == "2.1.0"
    assert manifest["packages"]["mypkg"] == "file:///tmp/mypkg"
    assert manifest["install_seconds"] == 12.35 and manifest["disk_bytes"] == 1234
    assert manifest["licence_accepted"] is None  # gplearn has no licence to accept
    assert manifest["requirements"] == ["gplearn==0.4.3"]
    path = tmp_path / "m.json"
    install.write_manifest(path, manifest)
    assert json.loads(path.read_text()) == manifest
    assert not list(tmp_path.glob("*.tmp"))
    hroch = install.make_manifest(roster.get("hroch"), python_version="3.11", freeze="HROCH==1.4.12\n", steps=[],
                               seconds=1, disk_bytes=1, licence_accepted=False)  # fmt: skip
    assert hroch["installed_version"] == "1.4.12"


def test_disk_usage_counts_hard_links_once(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a").write_bytes(b"x" * 1000)
    (tmp_path / "b").write_bytes(b"y" * 24)
    os.link(tmp_path / "d" / "a", tmp_path / "d" / "hard")
    os.symlink(tmp_path / "d" / "a", tmp_path / "soft")
    size = install.disk_usage(tmp_path)
    assert 1024 <= size <= 1024 + len(str(tmp_path / "d" / "a"))
    assert install.format_bytes(1536) == "1.5 KB" and install.format_bytes(3 * 1024**3) == "3.0 GB"


# --- install -------------------------------------------------------------------------------------


def test_install_refuses_without_licence_before_touching_anything(home):
    with pytest.raises(install.LicenceNotAccepted, match="academic and non-commercial"):
        install.install(roster.get("qlattice"), echo=lambda line: None)
    assert not home.exists()


@pytest.mark.slow
def test_install_writes_the_manifest_last(home, tmp_path, monkeypatch, unlocked_pip):
    spec = roster.get("ffx")
    monkeypatch.setattr(install, "install_steps", lambda spec, python, **kw: [
        py_step("pip install numpy ffx==2.1.0 six", "print('Collecting ffx==2.1.0'); print('noise')", spec.pinned)
    ])  # fmt: skip
    lines = []
    manifest = install.install(spec, base_python=fake_base_python(tmp_path), echo=lines.append)
    root = envs.env_dir("ffx")
    assert installed("ffx") and envs.read_manifest("ffx") == manifest
    assert [s["step"] for s in manifest["steps"]][1] == "pip install numpy ffx==2.1.0 six"
    assert manifest["python"] == sys.version.split()[0]
    assert manifest["disk_bytes"] > 0 and manifest["install_seconds"] >= 0
    assert "numpy" in {k.lower() for k in manifest["packages"]}  # pip freeze of the env's interpreter
    assert "    Collecting ffx==2.1.0" in lines and "    noise" not in lines  # progress lines only
    assert lines[0] == "[ffx] note: uv not found (or SRBF_INSTALLER=pip): installing with pip, which is slower"
    assert lines[1].startswith("[ffx] create the environment") and "no lock for Python" in lines[2]
    assert lines[3].startswith("[ffx] step 1/2: pip install numpy ffx==2.1.0 six")
    assert manifest["lock_hash"] is None and manifest["lock_source"] == "none" and manifest["installer"] == "pip"
    assert "noise" in (root / install.INSTALL_LOG).read_text()  # the whole output is logged
    assert envs.resolve_python("env:ffx") == str(envs.env_python("ffx"))
    again = []
    assert install.install(spec, base_python="/nonexistent", echo=again.append) == manifest
    assert "already installed" in again[0]


@pytest.mark.slow
def test_latest_with_pip_diffs_the_installed_versions_against_the_lock(home, tmp_path, monkeypatch, unlocked_pip):
    """Without uv, --latest lets pip resolve and compares what it installed with the committed lock."""
    import numpy

    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    locks = tmp_path / "no-locks" / "ffx"
    locks.mkdir(parents=True)
    h = "--hash=sha256:" + "0" * 64
    (locks / f"lock-py{python}.txt").write_text(f"numpy==0.0.1 {h}\nnot-in-this-env==1.0 {h}\n")
    monkeypatch.setattr(install, "install_steps", lambda spec, python, **kw: [py_step("pip install ...", "pass")])
    lines = []
    manifest = install.install(roster.get("ffx"), base_python=fake_base_python(tmp_path), latest=True, echo=lines.append)
    assert f"    ~ numpy 0.0.1 -> {numpy.__version__}" in lines and "    - not-in-this-env 1.0" in lines
    assert any(line.startswith("[ffx] --latest: ") and f"differ from the lock ffx/lock-py{python}.txt" in line for line in lines)
    assert manifest["lock_source"] == "none" and manifest["lock_hash"] is None
    assert f"~ numpy 0.0.1 -> {numpy.__version__}" in manifest["lock_diff"]


@pytest.mark.slow
def test_failed_install_names_step_and_package_and_leaves_no_manifest(home, tmp_path, monkeypatch, unlocked_pip):
    spec = roster.get("gplearn")
    failing = "import sys; print('Collecting gplearn'); [print('line', i) for i in range(40)]; " \
              "print('ERROR: No matching distribution'); sys.exit(1)"  # fmt: skip
    monkeypatch.setattr(install, "install_steps", lambda spec, python, **kw: [
        py_step("pip install numpy gplearn==0.4.3", failing, spec.pinned)
    ])  # fmt: skip
    with pytest.raises(install.InstallError) as caught:
        install.install(spec, base_python=fake_base_python(tmp_path), echo=lambda line: None)
    message = str(caught.value)
    assert "step 'pip install numpy gplearn==0.4.3' failed for gplearn==0.4.3 (exit code 1)" in message
    assert "ERROR: No matching distribution" in caught.value.tail
    assert len(caught.value.tail.splitlines()) == install.TAIL_LINES  # pip's output tail, not all of it
    assert "line 0" not in caught.value.tail
    assert not installed("gplearn") and envs.read_manifest("gplearn") is None
    with pytest.raises(envs.EnvError, match="did not finish"):
        envs.resolve_python("env:gplearn")
    # a rerun rebuilds the unfinished environment from scratch
    monkeypatch.setattr(install, "install_steps", lambda spec, python, **kw: [py_step("ok", "pass")])
    lines = []
    install.install(spec, base_python=fake_base_python(tmp_path), echo=lines.append)
    assert any("removing an unfinished environment" in line for line in lines)
    assert installed("gplearn")


def test_failed_venv_creation_is_an_install_error(home, tmp_path, unlocked_pip):
    with pytest.raises(install.InstallError, match="cannot run /nonexistent/python"):
        install.install(roster.get("gplearn"), base_python="/nonexistent/python", echo=lambda line: None)


# --- doctor --------------------------------------------------------------------------------------


def test_doctor_missing_env_and_missing_adapter(home, tmp_path, monkeypatch):
    report = doctor.doctor(replace(roster.get("gplearn"), folder=tmp_path / "gplearn"))
    assert not report.ok
    assert report.problems == [
        "gplearn is not installed: run srbf methods install gplearn",
        f"adapter file missing: {tmp_path / 'gplearn' / 'adapter.py'}",
    ]
    assert report.lines() == ["gplearn is not installed: run srbf methods install gplearn",
                              f"gplearn: adapter file missing: {tmp_path / 'gplearn' / 'adapter.py'}"]


def test_doctor_imports_an_installed_package_even_without_its_adapter(home, tmp_path, monkeypatch):
    fake_env("toy")
    spec = MethodSpec(name="toy", package="numpy", version="0", import_name="numpy", requirements=("numpy==0",),
                      budget_knob="none", trajectory="none", paradigm="structured_search", folder=tmp_path)  # fmt: skip
    report = doctor.doctor(spec)
    assert report.version is not None and report.status is None  # imported; no fit without an adapter
    assert report.problems == [f"adapter file missing: {tmp_path / 'adapter.py'}"]
    assert report.lines()[0].startswith(f"toy: {report.version} imports in")


def test_doctor_pysr_without_julia_says_so_in_one_line(home, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    lines = doctor.doctor(roster.get("pysr")).lines()
    julia = [line for line in lines if "Julia" in line]
    assert len(julia) == 1
    assert julia[0].startswith("pysr needs Julia: `julia` is not on PATH")


@pytest.mark.slow
def test_doctor_fits_the_toy_problem_through_the_worker(home, tmp_path, monkeypatch):
    adapters = tmp_path / "adapters"
    adapters.mkdir()
    (adapters / "adapter.py").write_text(textwrap.dedent("""\
        import numpy as np

        def fit(X, y, *, budget, seed, variables, options, report):
            A = np.column_stack([X[:, 0] ** 2, X[:, 1], np.ones(len(y))])
            a, b, c = map(float, np.linalg.lstsq(A, y, rcond=None)[0])
            report(f"{b!r}*{variables[1]}")
            return {"expression": f"{a!r}*{variables[0]}**2 + {b!r}*{variables[1]} + {c!r}", "budget": budget}
        """))
    fake_env("toy")
    spec = MethodSpec(name="toy", package="numpy", version="0", import_name="numpy", requirements=("numpy==0",),
                      budget_knob="none", trajectory="none", paradigm="structured_search", folder=adapters)  # fmt: skip
    report = doctor.doctor(spec, budget=3)
    assert report.ok, report.problems
    assert report.version is not None and report.status == "ok" and report.budget == 3
    assert report.r2 == pytest.approx(1.0)
    assert report.fit_seconds is not None and report.fit_seconds < 30
    text = "\n".join(report.lines())
    assert "toy fit of y = x0**2 + x1 (budget 3)" in text and "R2 1.0000" in text

    (adapters / "adapter.py").write_text("def fit(X, y, **kw):\n    return {'expression': 'x0 +* x1'}\n")
    report = doctor.doctor(spec)
    assert not report.ok and report.problems[0].startswith("srbf cannot read the formula 'x0 +* x1'")

    (adapters / "adapter.py").write_text("import not_a_module_anywhere\n")
    report = doctor.doctor(spec)
    assert report.problems[0].startswith("the adapter did not start")

    broken = replace(spec, import_name="not_a_module_anywhere")
    report = doctor.doctor(broken)
    assert report.problems == [f"cannot import not_a_module_anywhere in {envs.env_python('toy')}: "
                               "ModuleNotFoundError: No module named 'not_a_module_anywhere'"]  # fmt: skip


def test_smallest_budget_reads_every_ladder_form():
    assert doctor.smallest_budget([8, 2, 4]) == 2
    assert doctor.smallest_budget(5) == 5
    assert doctor.smallest_budget({"powers_of_two": [3, 6]}) == 8
    assert doctor.smallest_budget(None) == 1 and doctor.smallest_budget("x", default=2) == 2


TOY_METHOD = """\
package: toy-pkg
version: "1.0"
budget_knob: steps
trajectory: none
paradigm: structured_search
run:
  config_provenance: author_blessed
  options: {population_size: 50}
  budgets: [4, 8]
options:
  population_size: {type: int, range: [1, null]}
"""


def method_folder(tmp_path, text, name="toy"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "method.yaml").write_text(text)
    return folder


def test_a_method_folder_is_read_into_its_record(tmp_path):
    spec = roster.load_folder(method_folder(tmp_path, TOY_METHOD))
    assert (spec.name, spec.package, spec.import_name, spec.requirements) == ("toy", "toy-pkg", "toy_pkg", ("toy-pkg==1.0",))
    assert spec.config_provenance == "author_blessed" and spec.reproducible is True
    defaults = spec.config_defaults()
    assert defaults["adapter"] == {"type": "file", "path": str(tmp_path / "toy" / "adapter.py")}
    assert defaults["python"] == "env:toy" and defaults["budget_knob"] == "steps"
    assert defaults["options"] == {"population_size": 50} and doctor.smallest_budget(defaults["budgets"]) == 4
    assert list(roster.scan(tmp_path)) == ["toy"]
    with pytest.raises(FrozenInstanceError):
        spec.run = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.run["options"] = {}  # type: ignore[index]


@pytest.mark.parametrize(("text", "message"), [
    (TOY_METHOD.replace('version: "1.0"\n', ""), "toy/method.yaml: version: missing"),
    (TOY_METHOD.replace("paradigm: structured_search\n", ""),
     "toy/method.yaml: paradigm: missing (one of structured_search, evolutionary, neural_policy, hybrid, transformer,"),
    (TOY_METHOD.replace("structured_search", "genetic"),
     "toy/method.yaml: paradigm: input should be 'structured_search', 'evolutionary', 'neural_policy', 'hybrid', "
     "'transformer' or 'llm_assisted', got 'genetic'"),
    (TOY_METHOD.replace('"1.0"', "[1]"), "toy/method.yaml: version: input should be a valid string, got [1]"),
    (TOY_METHOD + "licence_text: x\n", "toy/method.yaml: licence_text: extra inputs are not permitted, got 'x'"),
    (TOY_METHOD + "reproducible: 1\n", "toy/method.yaml: reproducible: input should be a valid boolean, got 1"),
    (TOY_METHOD.replace("author_blessed", "blessed"), "toy/method.yaml: run.config_provenance: input should be"),
    (TOY_METHOD.replace("{type: int, range: [1, null]}", "{type: integer}"),
     "toy/method.yaml: options.population_size.type: must be one of int, number, bool"),
    (TOY_METHOD.replace("range: [1, null]", "rnage: [1, null]"),
     "toy/method.yaml: options.population_size: unknown constraint key 'rnage'; did you mean 'range'?"),
    (TOY_METHOD.replace("range: [1, null]", "range: [1]"), "toy/method.yaml: options.population_size.range: must be"),
    ("- a list\n", "toy/method.yaml: must be a mapping of fields (package, version, ...), got ['a list']"),
    (TOY_METHOD + "configs: {tuned: {options: {population_size: 9}}}\n",
     "toy/method.yaml: configs.tuned.config_provenance: missing (upstream_default, author_blessed or harness_tuned)"),
    (TOY_METHOD + "configs: {Big: {config_provenance: harness_tuned}}\n",
     "toy/method.yaml: configs.Big: a configuration's name must be a lowercase word other than the default's"),
    (TOY_METHOD + "configs: {author_blessed: {config_provenance: author_blessed}}\n",
     "toy/method.yaml: configs.author_blessed: a configuration's name must be a lowercase word other than the"),
    (TOY_METHOD + "configs: {big: {config_provenance: harness_tuned, options: {population_size: 0}}}\n",
     "toy/method.yaml: configs.big.options.population_size: "),
    (TOY_METHOD + "configs: {big: {config_provenance: harness_tuned, budget: [1]}}\n",
     "toy/method.yaml: configs.big.budget: extra inputs are not permitted"),
    ("package: [\n", "toy/method.yaml: cannot read it: "),
    (TOY_METHOD + 'python: "3.12+"\n',
     "toy/method.yaml: python: not a Python requirement such as '>=3.12' or '>=3.11, <3.14': '3.12+'"),
])
def test_a_wrong_method_file_is_one_line_naming_file_field_and_value(tmp_path, text, message):
    with pytest.raises(roster.MethodFileError) as caught:
        roster.load_folder(method_folder(tmp_path, text))
    assert message in str(caught.value) and len(str(caught.value).splitlines()) == 1, str(caught.value)


def test_a_config_entry_naming_a_roster_method_gets_its_defaults_under_its_own_keys():
    gplearn = roster.get("gplearn")
    assert roster.config_entry({"name": "gplearn"}) == gplearn.config_defaults() | {"name": "gplearn"}
    mine = roster.config_entry({"name": "mine", "adapter": "operon", "time_limit": 5, "options": {"budget_unit": "evaluations"}})
    assert mine["adapter"]["path"] == str(roster.get("operon").adapter_path) and mine["python"] == "env:operon"
    assert mine["time_limit"] == 5 and mine["options"] == {"budget_unit": "evaluations"}
    assert mine["budgets"] == {"powers_of_two": [0, 10]}  # operon's ladder, not set by the entry
    for untouched in ({"name": "linear"}, {"name": "x", "adapter": "builtin"}, {"name": "g", "adapter": {"type": "file"}}):
        assert roster.config_entry(untouched) == untouched
    assert roster.option_problems(gplearn.adapter_path, {"params": {}}) == []
    assert roster.option_problems(__file__, {"anything": 1}) == []  # a file off the roster: its own business
    assert roster.option_problems(gplearn.adapter_path, {"x": 1})[0][0] == "x"


def test_a_named_configuration_is_laid_over_the_default_and_chosen_with_config():
    qlattice = roster.get("qlattice")
    assert qlattice.config_names() == ("upstream_default", "author_blessed")
    blessed = roster.config_entry({"name": "ql_blessed", "adapter": "qlattice", "config": "author_blessed"})
    assert blessed["config_provenance"] == "author_blessed" and blessed["budgets"] == [200]
    assert blessed["options"] == {"params": {"criterion": "wide_parsimony"}} and blessed["python"] == "env:qlattice"
    assert "config" not in blessed and blessed["name"] == "ql_blessed"
    assert roster.config_entry({"name": "qlattice", "config": "upstream_default"}) == roster.config_entry({"name": "qlattice"})
    own = roster.config_entry({"name": "q", "adapter": "qlattice", "config": "author_blessed", "budgets": [2]})
    assert own["budgets"] == [2] and own["config_provenance"] == "author_blessed"  # the entry's own keys win


@pytest.mark.parametrize(("entry", "message"), [
    ({"name": "operon", "config": "blessed"},
     "methods[0].config: operon has no configuration 'blessed'; did you mean 'author_blessed'?"),
    ({"name": "operon", "config": "tuned"},
     "methods[0].config: operon has no configuration 'tuned' (its configurations: upstream_default, author_blessed)"),
    ({"name": "linear", "config": "author_blessed"}, "methods[0].config: only a roster method has named configurations"),
    ({"name": "operon", "config": ["author_blessed"]}, "methods[0].config: must be the name of one of operon's configurations"),
])
def test_a_wrong_config_name_is_one_line(entry, message):
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"experiment": "e", "catalogs": "nguyen", "methods": [entry]})
    text = str(caught.value)
    assert message in text and len(text.splitlines()) == 1 and "value error" not in text and "got {" not in text, text


@pytest.mark.parametrize("name", ["operon", "rils_rols", "qlattice"])
def test_the_blessed_configurations_run_with_allowed_options_and_their_own_label(name):
    (method,) = config_from_dict({"experiment": "e", "catalogs": "nguyen",
                                  "methods": [{"name": "b", "adapter": name, "config": "author_blessed"}]}).methods
    spec = roster.get(name)
    assert method.config_provenance == "author_blessed" and method.python == f"env:{name}"
    assert method.options["params"] == spec.config_defaults("author_blessed")["options"]["params"]
    assert roster.option_problems(spec.adapter_path, method.options) == []


# --- the CLI -------------------------------------------------------------------------------------


def test_command_parsing():
    parser = build_parser()
    args = parser.parse_args(["methods", "install", "qlattice", "--accept-licence", "--force"])
    assert (args.names, args.accept_licence, args.force, args.python) == (["qlattice"], True, True, None)
    assert parser.parse_args(["methods", "install", "all", "--accept-license"]).accept_licence
    args = parser.parse_args(["methods", "doctor", "all", "--time-limit", "20", "--budget", "4"])
    assert (args.names, args.time_limit, args.budget) == (["all"], 20.0, 4)
    assert parser.parse_args(["methods", "check", "gplearn", "operon", "ffx"]).names == ["gplearn", "operon", "ffx"]
    assert parser.parse_args(["methods", "list", "--json"]).json
    with pytest.raises(SystemExit):
        parser.parse_args(["methods"])


def test_methods_list(home, capsys):
    fake_env("ffx")
    assert main(["methods", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in listing["methods"]}
    assert list(rows) == list(roster.names())
    assert rows["ffx"]["installed"] and rows["ffx"]["installed_version"] == "1.0"
    assert not rows["gplearn"]["installed"] and rows["gplearn"]["version"] == "0.4.3"
    assert set(rows["gplearn"]) >= {"package", "config_provenance", "budget_knob", "trajectory", "paradigm"}
    assert (rows["gplearn"]["paradigm"], rows["qlattice"]["paradigm"]) == ("evolutionary", "structured_search")
    assert {b["name"]: b["paradigm"] for b in listing["builtins"]}["oracle"] == "reference"
    assert rows["gplearn"]["configs"] == [{"name": "upstream_default", "config_provenance": "upstream_default"}]
    assert [c["name"] for c in rows["qlattice"]["configs"]] == ["upstream_default", "author_blessed"]
    assert listing["envs_dir"] == str(home / "envs")
    assert main(["methods", "list"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["method", "paradigm", "package", "pinned", "installed", "configurations",
                                            "budget", "knob", "trajectory"]  # fmt: skip
    assert next(line for line in text.splitlines() if line.startswith("gplearn ")).split()[1] == "evolutionary"
    assert "oracle (reference)" in text and "enumeration (structured_search)" in text
    assert "upstream_default, author_blessed" in next(line for line in text.splitlines() if line.startswith("operon "))
    assert "python: env:NAME" in text


def test_methods_commands_user_errors(home, capsys):
    assert main(["methods", "install", "gplern"]) == 2
    assert "unknown method 'gplern'; did you mean 'gplearn'?" in capsys.readouterr().err
    assert main(["methods", "install", "qlattice"]) == 2
    err = capsys.readouterr().err
    assert "academic and non-commercial" in err and "--accept-licence" in err
    assert not home.exists()


def test_methods_doctor_command(home, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["methods", "doctor", "pysr"]) == 1
    out = capsys.readouterr().out
    assert "pysr needs Julia" in out and out.rstrip().endswith("pysr: NOT OK")
    assert main(["methods", "doctor", "ffx", "--json"]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["name"] == "ffx" and report["ok"] is False and "not installed" in report["problems"][0]


def test_methods_check_takes_several_names_each_once_and_refuses_an_unknown_one_before_any(home, capsys):
    assert main(["methods", "check", "ffx", "gplearn", "ffx", "--json"]) == 1
    assert [r["name"] for r in json.loads(capsys.readouterr().out)] == ["ffx", "gplearn"]
    assert main(["methods", "check", "ffx", "gplearn"]) == 1
    out = capsys.readouterr().out
    assert "ffx: NOT OK" in out and "gplearn: NOT OK" in out and out.rstrip().endswith("0 of 2 methods OK")
    assert main(["methods", "check", "ffx", "gplern"]) == 2
    captured = capsys.readouterr()
    assert "did you mean 'gplearn'?" in captured.err and "ffx" not in captured.out


# --- with the network ----------------------------------------------------------------------------


@pytest.mark.skipif(os.environ.get("SRBF_NETWORK_TESTS") != "1", reason="installs from PyPI; set SRBF_NETWORK_TESTS=1")
def test_install_and_doctor_from_pypi(home):
    spec = roster.get("ffx")
    manifest = install.install(spec, echo=lambda line: None)
    assert manifest["installed_version"] == spec.version
    assert "six" in {k.lower() for k in manifest["packages"]}
    report = doctor.doctor(spec, time_limit=120)
    if spec.adapter_path.is_file():
        assert report.ok, report.problems
    else:
        assert report.problems == [f"adapter file missing: {spec.adapter_path}"]
