"""Stores of an older schema: opened for writing they are migrated, opened read-only they are read."""

from __future__ import annotations

import dataclasses
import sqlite3

import pandas as pd
import pytest

from srbf.store import SCHEMA_VERSION, STORE_FILENAME, ResultsStore
from srbf.store.schema import APPLICATION_ID, METHOD_STACK_COLUMNS, MIGRATIONS, TABLES

INPUTS_HASH_LINE = "    inputs_hash     TEXT,                      -- of the X arrays alone, NULL if unknown\n"
JUDGE_STACKS_TABLE = TABLES[TABLES.index("\nCREATE TABLE judge_stacks") :]


def _schema_3_lines() -> list[str]:
    """The lines of TABLES that schema 3 added: the method's stack on campaigns, the metrics row's
    judge stack, and the judge_stacks table."""
    added = (*METHOD_STACK_COLUMNS, "judge_stack_id", "-- the method's own stack")
    lines = [line + "\n" for line in TABLES.splitlines() if line.strip().startswith(added)]
    assert len(lines) == 8  # a comment, six campaign columns, one metrics column
    return lines + [JUDGE_STACKS_TABLE]


REPEAT_LINE = "    repeat          INTEGER NOT NULL DEFAULT 0, -- which repeat of the method on the same points (schema 4)\n"
UNIQUE_KEY = "UNIQUE (method, config_hash, catalog, catalog_version, problem_id, draw, budget, condition, seed"


PEAK_LINE = "    peak_memory_bytes INTEGER,                 -- the method's process tree at its largest (schema 5)\n"
STATUS_CHECK = "CHECK (status IN ('ok', 'failed', 'timeout', 'crashed', {}'placeholder'))"


FROM_TRAJECTORY_LINES = (
    "    from_trajectory INTEGER NOT NULL DEFAULT 0 -- 1: a ladder's rung read from a longer fit's trajectory (schema 6)\n"
    "                    CHECK (from_trajectory IN (0, 1)),\n"
)


def _tables_of(version: int) -> str:
    """TABLES as srbf wrote them at schema ``version``."""
    tables = TABLES
    if version < 6:
        assert FROM_TRAJECTORY_LINES in tables  # what schema 6 added
        tables = tables.replace(FROM_TRAJECTORY_LINES, "")
    if version < 5:
        assert PEAK_LINE in tables and STATUS_CHECK.format("'memory_limit', ") in tables  # what schema 5 added
        tables = tables.replace(PEAK_LINE, "").replace(STATUS_CHECK.format("'memory_limit', "), STATUS_CHECK.format(""))
    if version < 4:
        assert REPEAT_LINE in tables and f"{UNIQUE_KEY}, repeat)" in tables  # schema 4 added the key's repeat
        tables = tables.replace(REPEAT_LINE, "").replace(f"{UNIQUE_KEY}, repeat)", f"{UNIQUE_KEY})")
    if version < 3:
        for text in _schema_3_lines():
            assert text in tables
            tables = tables.replace(text, "")
    if version < 2:
        assert INPUTS_HASH_LINE in tables  # schema 2 added exactly this column
        tables = tables.replace(INPUTS_HASH_LINE, "")
    return tables


def _schema_1_store(folder, version: int = 1):
    """A store as srbf wrote it at schema ``version`` (1: no ``inputs_hash``), with one prediction."""
    folder.mkdir()
    conn = sqlite3.connect(folder / STORE_FILENAME)
    conn.executescript(_tables_of(version))
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO campaigns (name, config, config_hash, provenance, srbf_version, created_at)"
        " VALUES ('old', '{}', 'cfg-1', 'harness_tuned', '0.1', 'then')"
    )
    conn.execute(
        "INSERT INTO predictions (campaign_id, method, config_hash, catalog, catalog_version, problem_id,"
        " draw, budget, condition, seed, provenance, status, expression, data_hash, created_at)"
        " VALUES (1, 'linear', 'cfg-1', 'nguyen', 1, 'nguyen-1', 0, 60.0, 'n_support=512;noise=0', 0,"
        " 'harness_tuned', 'ok', 'x0', 'old-hash', 'then')"
    )
    conn.commit()
    conn.close()
    return folder / STORE_FILENAME


def _columns(path):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA table_info(predictions)").fetchall(), conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def test_every_older_version_has_a_migration():
    assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION))


def test_a_schema_1_store_is_migrated_when_opened_for_writing(tmp_path, make_key, make_result):
    path = _schema_1_store(tmp_path / "old")
    with ResultsStore(tmp_path / "old") as store:
        store.record(make_key(1), make_result(1), campaign_id=1, data_hash="new-hash", inputs_hash="new-inputs")
        frame = store.predictions_frame()
    assert list(frame["data_hash"]) == ["old-hash", "new-hash"]
    assert pd.isna(frame["inputs_hash"][0]) and frame["inputs_hash"][1] == "new-inputs"
    ResultsStore(tmp_path / "new").close()
    assert _columns(path) == _columns(tmp_path / "new" / STORE_FILENAME)  # the same table as a new store
    assert _columns(path)[1] == SCHEMA_VERSION


def test_a_schema_1_store_opened_read_only_is_read_as_it_is(tmp_path):
    path = _schema_1_store(tmp_path / "old")
    with ResultsStore.open_readonly(tmp_path / "old") as store:
        frame = store.predictions_frame()
    assert list(frame["data_hash"]) == ["old-hash"] and pd.isna(frame["inputs_hash"][0])
    assert _columns(path)[1] == 1  # not migrated


def _all_columns(path):
    conn = sqlite3.connect(path)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {table: conn.execute(f"PRAGMA table_info({table})").fetchall() for table in tables}
    finally:
        conn.close()


def _schema_2_store_with_metrics(folder):
    path = _schema_1_store(folder, version=2)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO metrics (prediction_id, judge_version, metrics, created_at) VALUES (1, '1.0', '{}', 'then')")
    conn.commit()
    conn.close()
    return path


def test_a_schema_2_store_is_migrated_to_record_stacks(tmp_path, make_key, make_result):
    path = _schema_2_store_with_metrics(tmp_path / "old")
    stack = {"method_package": "srbf", "method_package_version": "0.1.0", "method_numpy_version": "2.1.3"}
    judge = {"python_version": "3.11.9", "numpy_version": "2.1.3", "scipy_version": "1.14.1",
             "sympy_version": "1.13.3", "mpmath_version": "1.3.0"}  # fmt: skip
    with ResultsStore(tmp_path / "old") as store:
        campaign = store.start_campaign("new", {}, "cfg-1", "harness_tuned", git=None, method_stack=stack)
        pid = store.record(make_key(1), make_result(1), campaign_id=campaign, data_hash="new-hash")
        store.record_metrics(pid, "1.0", {"r2": 1.0}, judge_stack=judge)
        campaigns = store.campaigns_frame()
        judged = store.metric_stacks_frame("1.0")
    assert campaigns["method_package"].isna().tolist() == [True, False]  # the old campaign: not recorded
    assert campaigns["method_numpy_version"][1] == "2.1.3"
    assert judged["numpy_version"].isna().tolist() == [True, False]  # the old metrics row: not recorded
    ResultsStore(tmp_path / "new").close()
    assert _all_columns(path) == _all_columns(tmp_path / "new" / STORE_FILENAME)  # every table as a new store's
    assert _columns(path)[1] == SCHEMA_VERSION


def test_a_schema_2_store_read_only_has_no_stack_to_show(tmp_path):
    path = _schema_2_store_with_metrics(tmp_path / "old")
    with ResultsStore.open_readonly(tmp_path / "old") as store:
        campaigns = store.campaigns_frame()
        judged = store.metric_stacks_frame()
        stacks = store.stack_frame()
    assert campaigns["method_lock_hash"].isna().all() and campaigns["srbf_version"].tolist() == ["0.1"]
    assert len(judged) == 1 and judged["mpmath_version"].isna().all()
    assert stacks[["method", "srbf_version", "judge_version", "fits", "scored"]].values.tolist() == [
        ["linear", "0.1", "1.0", 1, 1]]  # fmt: skip
    assert _columns(path)[1] == 2  # not migrated


def _schema_3_store_with_a_scored_fit(folder, version: int = 3):
    """A schema-3 store (keys without a repeat; or of ``version``) whose one prediction has a
    trajectory and metrics."""
    path = _schema_1_store(folder, version=version)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO trajectories (prediction_id, step, seconds, expression) VALUES (1, 0, 0.5, 'x0')")
    conn.execute("INSERT INTO metrics (prediction_id, judge_version, metrics, created_at) VALUES (1, '1.0', '{}', 'then')")
    conn.commit()
    conn.close()
    return path


def test_a_schema_3_store_gains_the_repeat_key_and_keeps_every_row(tmp_path, make_key, make_result):
    path = _schema_3_store_with_a_scored_fit(tmp_path / "old")
    old_key = make_key(0, problem_id="nguyen-1", draw=0)  # the key of the stored prediction
    with ResultsStore(tmp_path / "old") as store:
        assert store.done_keys() == {old_key}  # read as repeat 0: a rerun skips it
        again = store.record(dataclasses.replace(old_key, repeat=1), make_result(1), campaign_id=1, data_hash="old-hash")
        frame = store.predictions_frame()
        steps = store.trajectories_frame()
        scored = store.metrics_frame("1.0")
    assert again == 2 and frame["repeat"].tolist() == [0, 1] and frame["id"].tolist() == [1, 2]
    assert steps[steps["prediction_id"] == 1]["expression"].tolist() == ["x0"]  # the rebuild did not cascade
    assert scored["prediction_id"].tolist() == [1] and scored["repeat"].tolist() == [0]
    ResultsStore(tmp_path / "new").close()
    assert _all_columns(path) == _all_columns(tmp_path / "new" / STORE_FILENAME)
    conn = sqlite3.connect(path)
    try:
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
    assert "predictions_by_campaign" in indexes and _columns(path)[1] == SCHEMA_VERSION


def test_a_schema_3_store_read_only_reads_every_key_as_repeat_0(tmp_path, make_key):
    path = _schema_3_store_with_a_scored_fit(tmp_path / "old")
    with ResultsStore.open_readonly(tmp_path / "old") as store:
        frame = store.predictions_frame()
        scored = store.metrics_frame()
        keys = store.done_keys()
    assert frame["repeat"].tolist() == [0] and frame["repeat"].dtype == "int64"
    assert scored["repeat"].tolist() == [0]
    assert keys == {make_key(0, problem_id="nguyen-1", draw=0)}
    assert _columns(path)[1] == 3  # not migrated


@pytest.mark.slow
def test_a_schema_4_store_gains_memory_limit_and_peak_memory_and_keeps_every_row(tmp_path, make_key, make_result):
    path = _schema_3_store_with_a_scored_fit(tmp_path / "old", version=4)
    with ResultsStore(tmp_path / "old") as store:
        over = dataclasses.replace(make_result(1), status="memory_limit", peak_memory_bytes=3 * 2**30)
        store.record(make_key(1, problem_id="nguyen-2", draw=0), over, campaign_id=1, data_hash="h")
        frame = store.predictions_frame()
        scored = store.metrics_frame("1.0")
    assert frame["status"].tolist() == ["ok", "memory_limit"] and frame["id"].tolist() == [1, 2]
    assert frame["peak_memory_bytes"].isna().tolist() == [True, False]  # an old fit has no peak
    assert int(frame["peak_memory_bytes"].iloc[1]) == 3 * 2**30
    assert scored["prediction_id"].tolist() == [1]  # the rebuild did not cascade to the metrics
    ResultsStore(tmp_path / "new").close()
    assert _all_columns(path) == _all_columns(tmp_path / "new" / STORE_FILENAME)
    assert _columns(path)[1] == SCHEMA_VERSION


def test_a_schema_5_store_gains_from_trajectory_and_keeps_every_row(tmp_path, make_key, make_result):
    path = _schema_3_store_with_a_scored_fit(tmp_path / "old", version=5)
    with ResultsStore.open_readonly(tmp_path / "old") as store:  # read-only: not migrated, read as not from one
        assert store.predictions_frame()["from_trajectory"].tolist() == [False]
    with ResultsStore(tmp_path / "old") as store:
        rung = dataclasses.replace(make_result(1), from_trajectory=True, cpu_seconds=None)
        store.record(make_key(1, problem_id="nguyen-2", draw=0), rung, campaign_id=1, data_hash="h")
        frame = store.predictions_frame()
        scored = store.metrics_frame("1.0")
    assert frame["from_trajectory"].tolist() == [False, True] and frame["id"].tolist() == [1, 2]
    assert frame["from_trajectory"].dtype == bool and frame["cpu_seconds"].isna().tolist() == [True, True]
    assert scored["prediction_id"].tolist() == [1]  # the rebuild did not cascade to the metrics
    ResultsStore(tmp_path / "new").close()
    assert _all_columns(path) == _all_columns(tmp_path / "new" / STORE_FILENAME)
    assert _columns(path)[1] == SCHEMA_VERSION
