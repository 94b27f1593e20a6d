"""The analysis commands on a real store from a real ``srbf run``: one method that always fails
(its rates are 0, its diagnostics n = 0) and names from the data written to break the page (a
catalog name, problem ids and sweep values holding <script>, |, line breaks and $\\frac{$)."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pytest
import yaml
from report_helpers import run_cli

pytestmark = pytest.mark.slow

HOSTILE = "<script>alert(1)</script>|$\\frac{$"
CATALOG = {
    "srbf_catalog": 1,
    "name": "<script>alert('set')</script>|evil\nset $\\frac{$",
    "version": 1,
    "problems": [
        {"id": "p|1<script>", "formula": "2*x + 1", "variables": [{"name": "x", "range": [0, 1]}]},
        {"id": "p2\n$\\frac{$", "formula": "x*x + 0.5", "variables": [{"name": "x", "range": [0, 1]}]},
        {"id": "p3", "formula": "x + 3", "variables": [{"name": "x", "range": [0, 1]}]},
    ],
}
LEAST_SQUARES = """
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    w = np.linalg.lstsq(np.c_[X, np.ones(len(y))], y, rcond=None)[0]
    return {"expression": " + ".join(f"{v}*{float(c)!r}" for v, c in zip(variables, w)) + f" + {float(w[-1])!r}"}
"""
ALWAYS_FAILS = """
def fit(X, y, *, budget, seed, variables, options, report):
    raise RuntimeError("this method never returns a formula")
"""
METRICS = ("--metric", "nrr_validation", "--metric", "log10_fvu_validation")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A scored store: `good` (two sweep values, both hostile) fits every problem, `broken` none."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "hostile.yaml").write_text(yaml.safe_dump(CATALOG, sort_keys=False))
    (folder / "good.py").write_text(LEAST_SQUARES)
    (folder / "broken.py").write_text(ALWAYS_FAILS)
    config = {
        "experiment": "hostile", "catalogs": ["hostile.yaml"], "seed": 0, "workers": 1,
        "sampling": {"n_support": 32, "n_validation": 32, "draws": 1}, "budgets": [1],
        "methods": [
            {"name": "good", "adapter": {"type": "file", "path": "good.py"},
             "sweeps": [{"option": "tag", "values": [HOSTILE, "a|b\nc"]}]},
            {"name": "broken", "adapter": {"type": "file", "path": "broken.py"}},
        ],
        "results": str(folder / "results"),
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    from srbf.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        codes = [main(["run", "-c", str(folder / "config.yaml"), "--quiet"]),
                 main(["score", "--results", str(folder / "results")])]
    out, err = out.getvalue(), err.getvalue()
    assert codes == [0, 0], out + err
    assert "6 ok, 3 failed" in out, out
    return folder / "results"


def cells(row: str) -> list[str]:
    """A GFM table row split on its unescaped pipes (a backslash escapes the next character)."""
    parts, current, i = [], "", 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row):
            current += row[i:i + 2]
            i += 2
            continue
        if row[i] == "|":
            parts.append(current)
            current = ""
        else:
            current += row[i]
        i += 1
    parts.append(current)
    return parts[1:-1]  # the text before the first and after the last pipe is not a cell


def tables(text: str) -> list[list[str]]:
    """Every Markdown table of ``text`` as its list of row lines."""
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def test_analyze_writes_a_report_with_the_failing_method_and_no_raw_markup(store, tmp_path, capsys):
    code, out, err = run_cli(capsys, "analyze", "--results", str(store), "-o", str(tmp_path / "report"), *METRICS)
    assert code == 0, err
    text = (tmp_path / "report" / "index.md").read_text(encoding="utf-8")
    assert "<script" not in text.lower() and "&lt;script&gt;" in text
    found = tables(text)
    assert len(found) >= 6
    for rows in found:
        width = len(cells(rows[0]))
        assert all(len(cells(row)) == width for row in rows), rows
        assert re.fullmatch(r"\|( --- \|)+", rows[1])
    board = next(rows for rows in found if rows[0].startswith("| method (provenance)"))
    broken = next(row for row in board if row.startswith("| **broken**"))
    nrr, fvu = cells(broken)[2], cells(broken)[3]
    assert nrr.strip().startswith("0.0 [") and "(3)" in nrr  # a rate: every problem counts, as a miss
    assert fvu.strip() == "n = 0"  # a diagnostic: no usable formula to average
    assert sum(row.startswith("| **good\\[tag=") for row in board) == 2
    for name in ("curve_nrr_validation", "verdicts_nrr_validation", "cd_log10_fvu_validation"):
        assert (tmp_path / "report" / "figures" / f"{name}.png").stat().st_size > 0


def test_compare_and_ranks_with_the_failing_method(store, capsys):
    code, out, err = run_cli(capsys, "compare", "broken", 'good[tag="a|b\\nc"]', "--results", str(store),
                             "--metric", "log10_fvu_validation", "--metric", "nrr_validation", "--json")
    assert code == 0, err
    records = json.loads(out)
    fvu = [r for r in records if r["metric"] == "log10_fvu_validation"]
    assert fvu and all(r["n_pairs"] == 0 and r["verdict_note"] == "n = 0" and r["delta"] is None for r in fvu)
    nrr = [r for r in records if r["metric"] == "nrr_validation"]
    assert nrr and all(r["n_pairs"] == 3 for r in nrr)
    code, out, err = run_cli(capsys, "ranks", "--results", str(store), "--json")
    assert code == 0, err
    marks = json.loads(out)["marks"]
    assert marks and all(m["methods"][-1]["method"] == "broken" for m in marks)  # failures rank last
    assert all(m["k"] == 3 and m["n_problems"] == 3 for m in marks)
