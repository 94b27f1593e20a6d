"""Stores of an older schema: opened for writing they are migrated, opened read-only they are read."""

from __future__ import annotations

import sqlite3

import pandas as pd

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


def _tables_of(version: int) -> str:
    """TABLES as srbf wrote them at schema ``version``."""
    tables = TABLES
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
