"""The file itself: tables, WAL mode, schema version, and refusing files that are not ours."""

from __future__ import annotations

import re
import sqlite3

import pytest

from srbf.core import STATUSES
from srbf.store import PROVENANCES, SCHEMA_VERSION, STORE_FILENAME, ResultsStore, StoreError, resolve_path
from srbf.store.schema import APPLICATION_ID, TABLES


def test_new_store_has_tables_wal_and_version(tmp_path):
    with ResultsStore(tmp_path / "deep" / "results") as store:
        assert store.path == tmp_path / "deep" / "results" / STORE_FILENAME
    conn = sqlite3.connect(tmp_path / "deep" / "results" / STORE_FILENAME)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"campaigns", "predictions", "trajectories", "metrics", "judge_stacks", "secret", "shard", "sealed"}
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_reopening_keeps_rows(tmp_path, make_key, make_result):
    with ResultsStore(tmp_path) as store:
        campaign = store.start_campaign("a", {}, "cfg-1", "harness_tuned", git=None)
        store.record(make_key(), make_result(), campaign_id=campaign, data_hash="h")
    with ResultsStore(tmp_path) as store:
        assert len(store.predictions_frame()) == 1


def test_path_resolution(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_path(None) == tmp_path.joinpath("srbf-results", STORE_FILENAME).relative_to(tmp_path)
    assert resolve_path(tmp_path / "run.sqlite") == tmp_path / "run.sqlite"
    assert resolve_path(tmp_path / "runs") == tmp_path / "runs" / STORE_FILENAME
    (tmp_path / "plainfile").write_bytes(b"")
    assert resolve_path(tmp_path / "plainfile") == tmp_path / "plainfile"
    with ResultsStore() as store:
        assert store.path.resolve() == tmp_path / "srbf-results" / STORE_FILENAME


def test_check_constraints_match_the_records():
    statuses = re.search(r"status IN \(([^)]*)\)", TABLES).group(1)
    assert tuple(re.findall(r"'(\w+)'", statuses)) == STATUSES
    provenances = re.search(r"provenance IN \(([^)]*)\)", TABLES).group(1)
    assert tuple(re.findall(r"'(\w+)'", provenances)) == PROVENANCES


def test_database_rejects_unknown_status(store, campaign):
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        store._conn.execute(
            "INSERT INTO predictions (campaign_id, method, config_hash, catalog, catalog_version, problem_id,"
            " draw, budget, condition, seed, provenance, status, data_hash, created_at)"
            " VALUES (?, 'm', 'c', 'k', 1, 'p', 0, 1.0, '', 0, 'harness_tuned', 'lost', 'h', 'now')",
            (campaign,),
        )


def test_store_from_a_newer_srbf_is_refused(tmp_path):
    ResultsStore(tmp_path).close()
    path = tmp_path / STORE_FILENAME
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    for opener in (ResultsStore, ResultsStore.open_readonly):
        with pytest.raises(StoreError, match="newer srbf") as error:
            opener(tmp_path)
        assert str(path) in str(error.value)


def test_foreign_files_are_refused(tmp_path):
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not an srbf results store"):
        ResultsStore(other)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database, not at all" * 100)
    with pytest.raises(StoreError, match=re.escape(str(garbage))):
        ResultsStore(garbage)
    with pytest.raises(StoreError, match="not an SQLite file"):
        ResultsStore.open_readonly(garbage)


def test_open_readonly_needs_an_existing_store(tmp_path):
    with pytest.raises(StoreError, match="no such file"):
        ResultsStore.open_readonly(tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()


def test_readonly_store_refuses_writes(tmp_path, make_key, make_result):
    ResultsStore(tmp_path).close()
    with ResultsStore.open_readonly(tmp_path) as reader:
        with pytest.raises(StoreError, match="opened read-only"):
            reader.start_campaign("a", {}, "cfg", "harness_tuned", git=None)
        with pytest.raises(StoreError, match="opened read-only"):
            reader.record(make_key(), make_result(), campaign_id=1, data_hash="h")
