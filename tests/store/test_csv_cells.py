"""CSV safe for spreadsheets (store/csv_cells.py): every text cell a spreadsheet would run as a
formula gets one leading apostrophe, in every CSV srbf writes; reading back undoes it exactly;
Parquet stays exact."""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import pandas as pd
import pytest

from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore
from srbf.store.csv_cells import escape_cell, read_csv, unescape_cell, write_csv

SRC = Path(__file__).resolve().parents[2] / "src" / "srbf"
RUNS = ("=", "+", "-", "@", "\t", "\r")

HOSTILE = ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-x0 + 1", "@SUM(A1:A9)", "\tx", "\r=1",
           "'=already escaped?", "''-two apostrophes", "=", "-", "+x0*2"]
PLAIN = ["x0 - 1", "sin(x0)", "-1.5", "-inf", "+2", "1e-3", "", "'quoted'", "a=b", " =spaced"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_a_spreadsheet_would_run_gets_one_apostrophe(text):
    escaped = escape_cell(text)
    assert escaped == "'" + text and not escaped.startswith(RUNS)
    assert unescape_cell(escaped) == text


@pytest.mark.parametrize("value", [*PLAIN, None, 3, -2.5, True, float("nan")])
def test_anything_else_is_left_as_it_is(value):
    assert escape_cell(value) is value or escape_cell(value) == value
    if isinstance(value, str):
        assert unescape_cell(escape_cell(value)) == value


def hostile_store(folder: Path) -> Path:
    with ResultsStore(folder) as store:
        campaign = store.start_campaign("c", {}, "h", "harness_tuned", git=None)
        for i, text in enumerate(HOSTILE):
            key = TaskKey(text, "h", "cat", 1, text, i, 1, "n_support=8;noise=0", 0, 0)
            store.record(key, FitResult("ok", text, error=text), campaign_id=campaign, data_hash="d")
    return folder


def test_export_csv_is_escaped_and_reads_back_exactly_and_parquet_stays_exact(tmp_path):
    with ResultsStore.open_readonly(hostile_store(tmp_path / "r")) as store:
        store.export(tmp_path / "e.csv")
        store.export(tmp_path / "e.parquet")
        original = store.predictions_frame(decode_json=False)
    with open(tmp_path / "e.csv", newline="", encoding="utf-8") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not [c for c in cells if c.startswith(RUNS) and not c.lstrip("+-").replace(".", "").isdigit()]
    back = read_csv(tmp_path / "e.csv", keep_default_na=False)
    for column in ("method", "problem_id", "expression", "error"):
        assert list(back[column]) == HOSTILE
    exact = pd.read_parquet(tmp_path / "e.parquet")
    assert list(exact["expression"]) == list(original["expression"]) == HOSTILE


def test_hostile_column_names_are_escaped_too(tmp_path):
    write_csv(pd.DataFrame({"=name": ["=x"], "ok": [-1.0]}), tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text().splitlines() == ["'=name,ok", "'=x,-1.0"]
    assert read_csv(tmp_path / "t.csv").to_dict("list") == {"=name": ["=x"], "ok": [-1.0]}


@pytest.mark.slow
def test_every_csv_srbf_writes_goes_through_write_csv():
    """No module but csv_cells writes a CSV itself (``.to_csv(`` or a ``csv.writer``)."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "csv_cells.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("to_csv", "writer", "DictWriter"):
                if node.attr == "to_csv" or (isinstance(node.value, ast.Name) and node.value.id == "csv"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []
