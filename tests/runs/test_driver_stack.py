"""The stack in every result, end to end: ``srbf run`` of built-in methods (one under srbf's
interpreter, one under another environment) records each method's stack on its campaign,
``srbf score`` the judge's on each metrics row; ``srbf status`` and ``srbf analyze`` show them; a
rescore with another judge stack is skipped with one warning unless ``--force``."""

from __future__ import annotations

import platform
import sqlite3
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
import yaml

import srbf
from srbf.cli import main
from srbf.judge import JUDGE_VERSION
from srbf.methods.stack import lock_hash as own_lock_hash
from srbf.store import ResultsStore

pytestmark = pytest.mark.slow

SHADOW_NUMPY = "0.0.1"  # the NumPy version the other environment's metadata records


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def other_python(tmp_path_factory) -> Path:
    """A virtual environment that imports srbf's NumPy and SciPy (a .pth file) but whose own
    metadata says NumPy 0.0.1: what the method's interpreter sees differs from what srbf sees."""
    root = tmp_path_factory.mktemp("other") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
    src = Path(srbf.__file__).resolve().parents[1]
    (site / "srbf-test.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{src}\n")
    info = site / f"numpy-{SHADOW_NUMPY}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: numpy\nVersion: {SHADOW_NUMPY}\n")
    return python


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory, other_python):
    """A run of linear (srbf's interpreter) and linear under the other environment, scored."""
    folder = tmp_path_factory.mktemp("run")
    config = folder / "run.yaml"
    config.write_text(yaml.safe_dump({
        "experiment": "stack",
        "catalogs": ["nguyen"],
        "limit": 2,
        "sampling": {"n_support": 32, "n_validation": 32, "draws": 1},
        "methods": [
            {"name": "linear", "budgets": [1], "config_provenance": "upstream_default"},
            {"name": "elsewhere", "adapter": {"type": "builtin", "name": "linear"}, "python": str(other_python),
             "budgets": [1], "config_provenance": "upstream_default"},
        ],
        "results": str(folder / "results"),
        "workers": 1,
    }))  # fmt: skip
    assert main(["run", "-c", str(config), "--quiet"]) == 0
    assert main(["score", "--results", str(folder / "results"), "--workers", "1", "--quiet"]) == 0
    return config, folder / "results"


def test_each_campaign_records_the_stack_its_method_ran_with(scored_run, other_python):
    _, results = scored_run
    with ResultsStore.open_readonly(results) as store:
        campaigns = store.campaigns_frame()
        predictions = store.predictions_frame()
    assert len(predictions) == 4 and set(predictions["status"]) == {"ok"}
    by_method = {predictions.loc[predictions["campaign_id"] == c, "method"].iloc[0]: row
                 for c, row in campaigns.set_index("id").iterrows()}  # fmt: skip
    here, there = by_method["linear"], by_method["elsewhere"]
    for row in (here, there):
        assert row["srbf_version"] == srbf.__version__ and row["python_version"] == platform.python_version()
        assert (row["method_package"], row["method_package_version"]) == ("srbf", srbf.__version__)
        assert row["method_scipy_version"] == metadata.version("scipy")
    # srbf's own lock as `make` installed it (None elsewhere); no lock behind another interpreter
    own = own_lock_hash(None)
    assert here["method_lock_hash"] == own if own else pd.isna(here["method_lock_hash"])
    assert pd.isna(there["method_lock_hash"])
    assert here["method_numpy_version"] == metadata.version("numpy")
    assert here["method_python_version"] == platform.python_version()
    assert there["method_numpy_version"] == SHADOW_NUMPY  # as the method's own interpreter sees it
    version = subprocess.run([str(other_python), "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert there["method_python_version"] == version


def judge_libraries() -> dict[str, str]:
    import mpmath
    import numpy
    import scipy
    import sympy

    return {"python_version": platform.python_version(), "numpy_version": numpy.__version__,
            "scipy_version": scipy.__version__, "sympy_version": sympy.__version__,
            "mpmath_version": mpmath.__version__}  # fmt: skip


def test_each_metrics_row_records_the_judge_stack_that_scored_it(scored_run):
    _, results = scored_run
    with ResultsStore.open_readonly(results) as store:
        stacks = store.metric_stacks_frame()
    assert len(stacks) == 4
    for column, value in judge_libraries().items():
        assert set(stacks[column]) == {value}, column


def test_status_shows_the_stack_per_method(scored_run, capsys):
    config, _ = scored_run
    code, out, err = run_cli(capsys, "status", "-c", str(config))
    assert code == 0, err
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["method", "fits", "srbf"])
    table = {line.split()[0]: line for line in lines[header + 1 : header + 3]}
    assert set(table) == {"linear", "elsewhere"}
    assert f"srbf {srbf.__version__}" in table["linear"] and metadata.version("numpy") in table["linear"]
    assert f" {SHADOW_NUMPY} " in table["elsewhere"] and f"{JUDGE_VERSION} #1" in table["elsewhere"]
    libraries = judge_libraries()
    assert lines[header + 3].strip() == (
        f"#1 judge {JUDGE_VERSION}: python {libraries['python_version']}, numpy {libraries['numpy_version']}, "
        f"scipy {libraries['scipy_version']}, sympy {libraries['sympy_version']}, mpmath {libraries['mpmath_version']}")
    assert lines[-1] == "4 of 4 fits stored (100.0%), 0 pending"  # the summary stays last


def test_the_report_has_the_stack_section_and_table(scored_run, capsys, tmp_path):
    _, results = scored_run
    code, out, err = run_cli(capsys, "analyze", "--results", str(results), "-o", str(tmp_path / "report"))
    assert code == 0, err
    index = (tmp_path / "report" / "index.md").read_text()
    section = index[index.index("## Stack") : index.index("## Files")]
    assert f"| elsewhere | 2 | {srbf.__version__}" in section and f"| {SHADOW_NUMPY} |" in section
    assert "[Stack](#stack)" in index and "- `tables/stack.csv`" in index
    import pandas as pd

    table = pd.read_csv(tmp_path / "report" / "tables" / "stack.csv")
    assert sorted(table["method"]) == ["elsewhere", "linear"] and set(table["scored"]) == {2}


def test_a_rescore_on_another_judge_stack_is_skipped_with_a_warning_unless_forced(scored_run, capsys, tmp_path):
    import shutil

    _, results = scored_run
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    conn = sqlite3.connect(copy / "srbf.sqlite")
    conn.execute("UPDATE judge_stacks SET sympy_version = '1.0.0'")  # as if scored where SymPy was 1.0.0
    conn.execute("UPDATE metrics SET judge_stack_id = NULL WHERE prediction_id = 1")  # and one before stacks
    conn.commit()
    conn.close()
    code, out, err = run_cli(capsys, "score", "--results", str(copy), "--workers", "1", "--quiet")
    assert code == 0 and "0 prediction(s) scored" in out
    warning = [line for line in out.splitlines() if line.startswith("warning:")]
    assert warning == [
        f"warning: 4 prediction(s) keep metrics of judge {JUDGE_VERSION} computed with another stack (sympy 1.0.0 -> "
        f"{judge_libraries()['sympy_version']}, 1 with no stack recorded), skipped; `srbf score --force` "
        "re-scores them with this one"
    ]
    with ResultsStore.open_readonly(copy) as store:
        assert store.metric_stacks_frame()["sympy_version"].isna().sum() == 1
    code, out, err = run_cli(capsys, "score", "--results", str(copy), "--workers", "1", "--quiet", "--force")
    assert code == 0 and "4 prediction(s) scored" in out and "warning" not in out
    with ResultsStore.open_readonly(copy) as store:
        stacks = store.metric_stacks_frame()
        metrics = store.metrics_frame()
    assert set(stacks["sympy_version"]) == {judge_libraries()["sympy_version"]} and len(metrics) == 4
    code, out, err = run_cli(capsys, "score", "--results", str(copy), "--workers", "1", "--quiet")
    assert "0 prediction(s) scored" in out and "4 already scored" in out and "warning" not in out
