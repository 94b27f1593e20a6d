"""docs/store.md's SQL and DuckDB examples, and `srbf export --metrics`, on a store filled by a
real run (two built-in methods on three Nguyen problems) and scored by the judge."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from srbf.cli import main
from srbf.judge import JUDGE_VERSION
from srbf.store import ResultsStore

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[2] / "docs" / "store.md"
CONFIG = """experiment: docs
catalogs: [nguyen]
problems: [Nguyen-1, Nguyen-5, Nguyen-7]
sampling: {draws: 1, n_support: 64, n_validation: 64}
budgets: [1]
methods: [linear, oracle]
"""


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    (root / "c.yaml").write_text(CONFIG + f"results: {root / 'results'}\n")
    assert main(["run", "-c", str(root / "c.yaml"), "--quiet"]) == 0
    return root / "results"


@pytest.fixture(scope="module")
def scored(results):
    assert main(["score", "--results", str(results)]) == 0
    return results


def stored_metrics(results: Path) -> dict[int, dict]:
    """Each prediction's metrics of the current judge, read with sqlite3 and json (not srbf)."""
    with sqlite3.connect(f"file:{results / 'srbf.sqlite'}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT prediction_id, metrics FROM metrics WHERE judge_version = ?", (JUDGE_VERSION,))
        return {int(i): json.loads(text) for i, text in rows}


def test_export_metrics_refuses_an_unscored_store(results, tmp_path, capsys):
    if stored_metrics(results):
        pytest.skip("the module's store was scored first")
    assert main(["export", "--results", str(results), "--metrics", "-o", str(tmp_path / "m.csv")]) == 2
    assert f"no metrics of judge {JUDGE_VERSION}" in capsys.readouterr().err and not (tmp_path / "m.csv").exists()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_export_metrics_writes_one_row_per_fit_with_its_metrics(scored, tmp_path, capsys, suffix):
    out = tmp_path / f"fits{suffix}"
    assert main(["export", "--results", str(scored), "--metrics", "-o", str(out)]) == 0
    assert f"6 prediction(s) with the metrics of judge {JUDGE_VERSION}" in capsys.readouterr().out
    frame = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)
    expected = stored_metrics(scored)
    assert sorted(frame["id"]) == sorted(expected) and len(frame) == 6
    assert set(frame["judge_version"].astype(str)) == {JUDGE_VERSION}
    assert {"method", "problem_id", "expression", "status"} <= set(frame.columns)
    for row in frame.to_dict("records"):
        for name in ("r2_validation", "nrr_validation", "token_f1", "tree_edit_distance"):
            assert row[name] == pytest.approx(expected[row["id"]][name], rel=1e-12), (row["id"], name)
    oracle = frame[frame["method"] == "oracle"]
    assert (oracle["nrr_validation"] == 1).all()


def test_the_sql_examples_run_as_written(scored):
    (sql,) = blocks("sql")
    statements = [s.strip() for s in sql.split(";") if s.strip()]
    conn = sqlite3.connect(f"file:{scored / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        counts, means = (conn.execute(statement).fetchall() for statement in statements)
    finally:
        conn.close()
    assert sorted(counts) == [("linear", "ok", 3), ("oracle", "ok", 3)]
    with ResultsStore.open_readonly(scored) as store:
        metrics = store.metrics_frame(JUDGE_VERSION)
    expected = metrics.groupby("method")["r2_validation"].mean()
    assert {m: pytest.approx(v, rel=1e-12) for m, v in sorted(means)} == expected.to_dict()
    assert f"judge_version = '{JUDGE_VERSION}'" in sql  # the docs name the current judge


def test_the_duckdb_example_runs_as_written(scored):
    pytest.importorskip("duckdb", reason="DuckDB is not installed (not one of srbf's dependencies)")
    (code,) = [b for b in blocks("python") if "import duckdb" in b]
    with ResultsStore.open_readonly(scored) as store:
        space = {"store": store}
        split = code.index("duckdb.sql(")  # the block's statements, then its last expression: the answer
        exec(compile(code[:split], "store.md", "exec"), space)  # noqa: S102
        table = eval(compile(code[split:], "store.md", "eval"), space)  # noqa: S307
        predictions, metrics = store.predictions_frame(), store.metrics_frame(JUDGE_VERSION)
    assert list(table["method"]) == ["linear", "oracle"] and list(table["fits"]) == [3, 3]
    merged = predictions.merge(metrics[["prediction_id", "r2_validation"]], left_on="id", right_on="prediction_id")
    for row in table.itertuples():
        part = merged[merged["method"] == row.method]
        assert row.mean_r2 == pytest.approx(part["r2_validation"].mean(), rel=1e-12)
        assert row.median_seconds == pytest.approx(part["wall_seconds"].median(), rel=1e-12)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_export_stack_writes_the_stack_of_the_exported_methods(scored, tmp_path, capsys, suffix):
    out, stack = tmp_path / "fits.parquet", tmp_path / f"stack{suffix}"
    assert main(["export", "--results", str(scored), "--metrics", "-o", str(out), "--stack", str(stack),
                 "--method", "oracle"]) == 0
    assert "the stack behind them, 1 row(s)" in capsys.readouterr().out
    frame = pd.read_parquet(stack) if suffix == ".parquet" else pd.read_csv(stack)
    assert list(frame["method"]) == ["oracle"] and list(frame["fits"]) == [3] and list(frame["scored"]) == [3]
    assert str(frame["judge_version"].iloc[0]) == JUDGE_VERSION and frame["srbf_version"].notna().all()


def test_export_stack_refuses_a_file_that_is_not_parquet_or_csv(scored, tmp_path, capsys):
    assert main(["export", "--results", str(scored), "-o", str(tmp_path / "f.parquet"),
                 "--stack", str(tmp_path / "stack.txt")]) == 2
    assert "--stack" in capsys.readouterr().err and not (tmp_path / "f.parquet").exists()
