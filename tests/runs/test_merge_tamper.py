"""``srbf merge`` trusts nothing it can recompute (runs/merge_check.py, store/merge.py): each
tampering of a shard (an edited expression, status, problem id or seed, an extra row, forged
metrics) either refuses the merge naming the row, or is caught by ``--verify``; a refused merge
leaves no output, and no merged store keeps a shard's metrics (it is scored again)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml

from srbf.cli import main

pytestmark = pytest.mark.slow

DETERMINISTIC_FITS = 3 * 3 * 2  # problems x draws x (linear, enumeration)


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Both shards of a run of the deterministic built-ins, shard 1 scored."""
    folder = tmp_path_factory.mktemp("tamper")
    config = folder / "run.yaml"
    config.write_text(yaml.safe_dump({
        "experiment": "tamper", "catalogs": ["nguyen"], "limit": 3, "seed": 7, "workers": 1,
        "sampling": {"n_support": 32, "n_validation": 16, "draws": 3},
        "methods": [{"name": "linear", "budgets": [1]}, {"name": "enumeration", "budgets": [3]}],
        "results": str(folder / "results"),
    }))
    for k in (1, 2):
        assert main(["run", "-c", str(config), "--shard", f"{k}/2", "--quiet"]) == 0
    first = folder / "results" / "shard-1-of-2"
    assert main(["score", "--results", str(first), "--workers", "1", "--quiet"]) == 0
    return first, folder / "results" / "shard-2-of-2"


def tampered(shards, tmp_path: Path, *statements: str) -> Path:
    """A copy of shard 1 with ``statements`` applied to its store."""
    copy = tmp_path / "shard-1"
    shutil.copytree(shards[0], copy)
    conn = sqlite3.connect(copy / "srbf.sqlite")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return copy


def one_row(path: Path, where: str) -> tuple:
    conn = sqlite3.connect(f"file:{path / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT id, problem_id, draw FROM predictions WHERE {where} ORDER BY id LIMIT 1").fetchone()
    finally:
        conn.close()


def refused(capsys, tmp_path, stores, *extra) -> str:
    code, out, err = cli(capsys, "merge", *stores, "-o", tmp_path / "merged", "--workers", "1", *extra)
    assert code == 2, out + err
    assert len(err.splitlines()) == 1 and ("nothing was merged" in err or "no run made" in err), err
    assert not list(tmp_path.glob("merged*"))  # no output, no partial file
    return err


def test_an_honest_merge_is_checked_verified_and_scored_afresh(shards, tmp_path, capsys):
    code, out, err = cli(capsys, "merge", *shards, "-o", tmp_path / "merged", "--verify", 100, "--workers", "1")
    assert code == 0, err
    assert f"checked {DETERMINISTIC_FITS} row(s)" in out and f"re-ran {DETERMINISTIC_FITS} fit(s)" in out, out
    conn = sqlite3.connect(tmp_path / "merged" / "srbf.sqlite")
    assert conn.execute("SELECT count(*) FROM metrics").fetchone()[0] == DETERMINISTIC_FITS
    conn.close()


@pytest.mark.parametrize("change", [
    "UPDATE predictions SET expression = expression || ' + 1' WHERE id = {id}",
    "UPDATE predictions SET status = 'failed', expression = NULL, error = 'forged' WHERE id = {id}",
], ids=["expression", "status"])
def test_an_edited_outcome_is_caught_by_verify(shards, tmp_path, capsys, change):
    row_id = one_row(shards[0], "method = 'enumeration' AND status = 'ok'")[0]
    copy = tampered(shards, tmp_path, change.format(id=row_id))
    err = refused(capsys, tmp_path, [copy, shards[1]], "--verify", DETERMINISTIC_FITS)
    assert f"prediction {row_id} (enumeration on nguyen/" in err and "re-run from its row it gives ok" in err, err


def test_an_edited_seed_refuses_the_merge_naming_the_row(shards, tmp_path, capsys):
    row_id = one_row(shards[0], "1")[0]
    err = refused(capsys, tmp_path, [tampered(shards, tmp_path, f"UPDATE predictions SET seed = 8 WHERE id = {row_id}"),
                                     shards[1]])  # fmt: skip
    assert f"prediction {row_id} (" in err and "its seed is not the run's seed" in err, err


def test_an_edited_problem_id_refuses_the_merge_naming_the_row(shards, tmp_path, capsys):
    row_id, problem, draw = one_row(shards[0], "problem_id = 'Nguyen-1' AND method = 'linear'")
    conn = sqlite3.connect(f"file:{shards[0] / 'srbf.sqlite'}?mode=ro", uri=True)
    taken = {r[0] for r in conn.execute("SELECT problem_id FROM predictions WHERE method = 'linear' AND draw = ?", (draw,))}
    conn.close()
    other = next(p for p in ("Nguyen-2", "Nguyen-3") if p not in taken)  # a selected problem, free in this shard
    err = refused(capsys, tmp_path, [tampered(shards, tmp_path, f"UPDATE predictions SET problem_id = '{other}' "
                                                                f"WHERE id = {row_id}"), shards[1]])  # fmt: skip
    assert f"prediction {row_id} (linear on nguyen/{other}" in err and "data hash is not the hash" in err, err


def test_a_problem_the_run_did_not_select_refuses_the_merge(shards, tmp_path, capsys):
    row_id = one_row(shards[0], "1")[0]
    copy = tampered(shards, tmp_path, f"UPDATE predictions SET problem_id = 'Nguyen-9' WHERE id = {row_id}")
    err = refused(capsys, tmp_path, [copy, shards[1]])
    assert f"prediction {row_id} (" in err and "'Nguyen-9' is not one the run selected" in err, err


COPY = ("INSERT INTO predictions (campaign_id, method, config_hash, catalog, catalog_version, problem_id, draw, budget,"
        " condition, seed, repeat, provenance, status, expression, error, wall_seconds, cpu_seconds, method_seconds,"
        " data_hash, internals, stderr_tail, created_at, inputs_hash) SELECT campaign_id, method, config_hash, catalog,"
        " catalog_version, problem_id, {draw}, budget, condition, seed, repeat, provenance, status, expression, error,"
        " wall_seconds, cpu_seconds, method_seconds, data_hash, internals, stderr_tail, created_at, inputs_hash"
        " FROM predictions WHERE id = {id}")


@pytest.mark.parametrize("draw", ["draw + 3", "(draw + 1) % 3"], ids=["outside-the-run", "inside-the-run"])
def test_an_extra_row_refuses_the_merge_naming_it(shards, tmp_path, capsys, draw):
    """A copied row with a draw the run never made, or with another draw of the run (its key then
    belongs to the other shard, or its points are not the copied row's)."""
    row_id = one_row(shards[0], "1")[0]
    copy = tampered(shards, tmp_path, COPY.format(draw=draw, id=row_id))
    conn = sqlite3.connect(copy / "srbf.sqlite")
    added = conn.execute("SELECT max(id) FROM predictions").fetchone()[0]
    conn.close()
    err = refused(capsys, tmp_path, [copy, shards[1]])
    assert f"prediction {added} (" in err, err


def test_forged_metrics_never_reach_the_merged_store(shards, tmp_path, capsys):
    forged = '{"r2": 1.0, "forged": true}'
    copy = tampered(shards, tmp_path, f"UPDATE metrics SET metrics = '{forged}'")
    code, out, err = cli(capsys, "merge", copy, shards[1], "-o", tmp_path / "merged", "--workers", "1")
    assert code == 0, err
    conn = sqlite3.connect(tmp_path / "merged" / "srbf.sqlite")
    texts = [r[0] for r in conn.execute("SELECT metrics FROM metrics")]
    conn.close()
    assert len(texts) == DETERMINISTIC_FITS and not [t for t in texts if "forged" in t]
    code, out, err = cli(capsys, "merge", copy, shards[1], "-o", tmp_path / "unscored", "--no-score")
    assert code == 0 and "not scored" in out, err
    conn = sqlite3.connect(tmp_path / "unscored" / "srbf.sqlite")
    assert conn.execute("SELECT count(*) FROM metrics").fetchone()[0] == 0
    conn.close()
