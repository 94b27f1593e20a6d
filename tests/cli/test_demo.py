"""``make demo`` (srbf.demo): its shipped config, its commands, its timed steps, and the findings it
prints, read from the tables of a report made by a small real run."""

from __future__ import annotations

import contextlib
import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from srbf import demo
from srbf.cli import main as srbf
from srbf.runs.config import load_config
from srbf.runs.shipped import CONFIGS_DIR
from srbf.store.csv_cells import unescape_cell


def quiet(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return srbf(list(argv))


def test_the_demo_config_runs_a_roster_method_beside_both_references():
    config = load_config(demo.CONFIG)
    methods = {m.name: m for m in config.methods}
    assert set(methods) == {"linear", "prior", demo.METHOD}
    gp = methods[demo.METHOD]
    assert gp.python == f"env:{demo.METHOD}" and Path(gp.adapter.path).parent.name == demo.METHOD  # its own env
    assert config.sampling.draws >= 2  # a verdict's noise margin needs two draws of each problem
    assert all(float(b).is_integer() for m in config.methods for b in m.budgets)  # work, never seconds
    assert Path(config.results) == Path(demo.RESULTS)  # `srbf status -c demo` reads the demo's store


def test_the_analysis_reads_each_method_at_its_own_largest_budget():
    analyze = next(argv for argv in demo.commands("demo") if argv[0] == "analyze")
    assert analyze[analyze.index("--at-budget") + 1] == "max"  # no result depends on the machine's speed
    assert [analyze[i + 1] for i, a in enumerate(analyze) if a == "--metric"] == list(demo.METRICS)


def test_a_file_of_ones_own_called_demo_does_not_replace_the_shipped_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert demo.config_ref() == "demo"
    (tmp_path / "demo").write_text("experiment: mine\ncatalogs: nguyen\nmethod: linear\n")
    assert demo.config_ref() == str(CONFIGS_DIR / "demo.yaml")


def test_steps_stop_at_the_first_failure_and_every_step_run_is_timed(capsys):
    ran = []
    steps = [("one", lambda: ran.append(1) or 0), ("two", lambda: ran.append(2) or 3), ("three", lambda: ran.append(3) or 0)]
    code, times = demo.run_steps(steps)
    assert (code, ran, [label for label, _, _ in times]) == (3, [1, 2], ["one", "two"])
    assert all(wall >= 0 and cpu >= 0 for _, wall, cpu in times)
    assert "`two` exited with status 3" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The report tables of a small real run of the two references (two draws, so verdicts are decided)."""
    folder = tmp_path_factory.mktemp("demo")
    config = {"experiment": "d", "catalogs": ["nguyen"], "limit": 3, "workers": 2, "results": str(folder / "results"),
              "sampling": {"n_support": 64, "n_validation": 64, "draws": 2},
              "methods": [{"name": "linear", "budgets": [1]}, {"name": "prior", "budgets": [1, 8]}]}
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    assert quiet("run", "-c", str(folder / "config.yaml"), "--quiet") == 0
    assert quiet("score", "--results", str(folder / "results")) == 0
    metrics = [a for m in demo.METRICS for a in ("--metric", m)]
    assert quiet("analyze", "--results", str(folder / "results"), "--at-budget", "max", "-o", str(folder / "report"),
                 *metrics) == 0
    return folder / "report" / "tables"


def rows(path: Path) -> list[dict[str, str]]:
    """A report table as the report meant it: spreadsheet escapes undone."""
    with path.open(newline="") as handle:
        return [{k: unescape_cell(v) for k, v in row.items()} for row in csv.DictReader(handle)]


@pytest.mark.slow
def test_findings_show_the_reports_values_verdicts_and_ranks(tables):
    text = demo.findings(tables)
    lines = text.splitlines()
    assert "'-" not in text  # the CSV's spreadsheet escape never reaches the terminal
    for row in rows(tables / "leaderboard.csv"):
        if row["metric"] in demo.METRICS:  # each method's line holds its value with its problem count
            line = next(line for line in lines if line.startswith(row["method"] + " "))
            assert f"{row['shown']} ({row['n_problems']})" in line
    compared = [r for r in rows(tables / "comparisons.csv") if r["metric"] in demo.METRICS]
    assert compared
    for row in compared:
        assert any(line.split()[:3] == [row["metric"], row["method_a"], row["method_b"]] and
                   line.split()[-1] == row["verdict"] for line in lines)
    ranked = sorted((r for r in rows(tables / "ranks.csv") if r["metric"] == demo.RANKED), key=lambda r: float(r["mean_rank"]))
    order = [line.split()[0] for line in lines[lines.index(next(l for l in lines if l.startswith("Mean ranks"))) + 4:]
             if line and not line.startswith("Friedman")]
    assert order == [r["method"] for r in ranked]
    assert f"CD = {float(ranked[0]['cd']):.2f}" in text


@pytest.mark.slow
def test_a_steps_cpu_seconds_include_the_processes_it_ran():
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    code, [(_, wall, cpu)] = demo.run_steps([("child", lambda: subprocess.run([sys.executable, "-c", burn]).returncode)])
    assert code == 0 and cpu >= 0.25 and wall >= 0.25
