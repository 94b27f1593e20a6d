"""A damaged store (a cell of the wrong type: text in an integer column, bytes in a text column)
is named in one line, table, row and column, by every reader and every reading command, never
with a traceback (store/cells.py). Every column of every table is corrupted in turn; the columns
come from the store's own schema, not from a list here."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

import pytest
import yaml

from srbf.cli import main
from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore, ShardInfo, StoreError
from srbf.store.cells import allowed_classes


def full_store(folder: Path) -> Path:
    """A store with a row in every table: campaign, prediction with trajectory, metrics with its
    judge stack, secret, shard and sealed seed."""
    stack = {"python_version": "3", "numpy_version": "2", "scipy_version": "1", "sympy_version": "1",
             "mpmath_version": "1"}
    with ResultsStore(folder) as store:
        store.claim_shard(ShardInfo(1, 2, "digest", 1), b"s" * 32)
        store.claim_sealed(12345)
        campaign = store.start_campaign("c", {"run": {}}, "h", "harness_tuned", git=("abc", False))
        key = TaskKey("m", "h", "cat", 1, "p1", 0, 5, "n_support=8;noise=0", 12345, 0)
        prediction = store.record(key, FitResult("ok", "x0", wall_seconds=1.0, cpu_seconds=1.0, method_seconds=0.5,
                                                 trajectory=[(0.1, "x0")]), campaign_id=campaign, data_hash="d",
                                  inputs_hash="i")  # fmt: skip
        store.record_metrics(prediction, "1.0", {"r2": 0.5}, judge_stack=stack)
    return folder


def columns() -> list[tuple[str, str, tuple[str, ...]]]:
    """(table, column, storage classes it allows) of every column a cell of the wrong type can go into."""
    path = full_store(Path(tempfile.mkdtemp())) / "srbf.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        found = []
        for table in tables:
            info = list(conn.execute(f"PRAGMA table_info({table})"))
            rowid_alias = [r[1] for r in info if r[5] and r[2].upper() == "INTEGER"] if sum(r[5] > 0 for r in info) == 1 else []
            for r in info:
                classes = allowed_classes(r[2], bool(r[3]) or bool(r[5]))
                if classes and r[1] not in rowid_alias:  # an INTEGER PRIMARY KEY cannot hold anything else
                    found.append((table, r[1], classes))
    return found


COLUMNS = columns()


def wrong_value(classes: tuple[str, ...]):
    return b"\x00\xff" if "text" in classes else "garbage"


def corrupt(source: Path, folder: Path, table: str, column: str, value) -> int:
    """A copy of the store at ``source`` with ``value`` in ``column`` of the first row of ``table``;
    returns that row's rowid."""
    shutil.copytree(source, folder)
    conn = sqlite3.connect(folder / "srbf.sqlite")
    conn.execute("PRAGMA ignore_check_constraints = ON")
    rowid = conn.execute(f"SELECT min(rowid) FROM {table}").fetchone()[0]
    conn.execute(f'UPDATE {table} SET "{column}" = ? WHERE rowid = ?', (value, rowid))
    conn.commit()
    conn.close()
    return rowid


def test_every_table_and_its_columns_are_covered():
    tables = {t for t, _, _ in COLUMNS}
    assert tables == {"campaigns", "predictions", "trajectories", "metrics", "judge_stacks", "secret", "shard", "sealed"}
    assert ("predictions", "draw", ("integer",)) in COLUMNS and ("predictions", "budget", ("real", "integer")) in COLUMNS


@pytest.mark.parametrize("table, column, classes", COLUMNS, ids=[f"{t}.{c}" for t, c, _ in COLUMNS])
@pytest.mark.slow
def test_a_wrong_cell_is_named_by_every_reader(tmp_path, table, column, classes):
    source = full_store(tmp_path / "source")
    rowid = corrupt(source, tmp_path / "damaged", table, column, wrong_value(classes))
    readers = [lambda s: s.predictions_frame(), lambda s: s.metrics_frame(), lambda s: s.campaign_rows(),
               lambda s: s.trajectory_rows(), lambda s: s.done_keys(), lambda s: s.sealed(), lambda s: s.shard()]
    for read in readers:
        with ResultsStore.open_readonly(tmp_path / "damaged") as store, pytest.raises(StoreError) as caught:
            read(store)
        message = str(caught.value)
        assert len(message.splitlines()) == 1
        assert f"damaged: table {table}, row {rowid}, column {column} holds" in message, message


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory):
    """A real run, scored, and its config."""
    folder = tmp_path_factory.mktemp("damaged")
    config = folder / "run.yaml"
    config.write_text(yaml.safe_dump({"experiment": "d", "catalogs": ["nguyen"], "limit": 2, "workers": 1,
                                      "sampling": {"n_support": 32, "n_validation": 16, "draws": 1},
                                      "methods": [{"name": "linear", "budgets": [1]}, {"name": "oracle", "budgets": [1]}],
                                      "results": str(folder / "results")}))  # fmt: skip
    assert main(["run", "-c", str(config), "--quiet"]) == 0
    assert main(["score", "--results", str(folder / "results"), "--workers", "1", "--quiet"]) == 0
    return folder


COMMANDS = {
    "status": lambda results, out: ["status", "-c", str(results.parent / "run.yaml"), "--results", str(results)],
    "export": lambda results, out: ["export", "--results", str(results), "-o", str(out / "e.csv")],
    "score": lambda results, out: ["score", "--results", str(results), "--workers", "1", "--force", "--quiet"],
    "analyze": lambda results, out: ["analyze", "--results", str(results), "-o", str(out / "report")],
    "ranks": lambda results, out: ["ranks", "--results", str(results)],
    "site": lambda results, out: ["site", "build", "--results", str(results), "-o", str(out / "site")],
}


@pytest.mark.parametrize("table, column, value", [("predictions", "draw", "abc"), ("metrics", "prediction_id", "x"),
                                                  ("campaigns", "cpu_count", "many"), ("trajectories", "seconds", "s")])
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.slow
def test_every_reading_command_names_the_cell_in_one_line(scored_run, tmp_path, capsys, command, table, column, value):
    if table == "trajectories":
        conn = sqlite3.connect(scored_run / "results" / "srbf.sqlite")
        has = conn.execute("SELECT count(*) FROM trajectories").fetchone()[0]
        conn.close()
        if not has:
            pytest.skip("these methods report no trajectory")
    rowid = corrupt(scored_run / "results", tmp_path / "results", table, column, value)
    shutil.copy(scored_run / "run.yaml", tmp_path / "run.yaml")
    code = main(COMMANDS[command](tmp_path / "results", tmp_path))
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"table {table}, row {rowid}, column {column} holds" in err, err
