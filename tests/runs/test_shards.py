"""Shards and merge: ``srbf run --shard K/N`` into separate stores, ``srbf merge`` with its checks,
``srbf status`` on a shard and on the merged store (real runs of the test method, real stores)."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from driver_helpers import swiss_config
from srbf.cli import main
from srbf.runs.shards import Shard, ShardError, shared_secret
from srbf.store import KEY_COLUMNS

N_PROBLEMS, DRAWS, BUDGETS = 7, 2, (1, 2)  # 28 fits: shards of 10, 9 and 9


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def keys(store) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute(f"SELECT {', '.join(KEY_COLUMNS)} FROM predictions").fetchall())
    finally:
        conn.close()


def secret_of(store) -> bytes:
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return bytes(conn.execute("SELECT value FROM secret").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def config(tmp_path):
    return swiss_config(tmp_path, n=N_PROBLEMS, draws=DRAWS, budgets=BUDGETS, workers=1)


def run_shards(capsys, config, n, which=None, *extra):
    for k in which or range(1, n + 1):
        code, out, err = cli(capsys, "run", "-c", str(config), "--shard", f"{k}/{n}", "--quiet", *extra)
        assert code == 0, err


@pytest.mark.slow
def test_a_clean_three_way_split_merges_into_the_unsharded_runs_keys(tmp_path, capsys, config):
    results = tmp_path / "results"
    code, out, err = cli(capsys, "run", "-c", str(config), "--results", str(tmp_path / "whole"), "--quiet")
    assert code == 0, err
    whole = keys(tmp_path / "whole")
    assert len(whole) == N_PROBLEMS * DRAWS * len(BUDGETS)
    run_shards(capsys, config, 3)
    shards = [results / f"shard-{k}-of-3" for k in (1, 2, 3)]
    parts = [keys(s) for s in shards]
    assert [len(p) for p in parts] == [10, 9, 9]
    assert set().union(*map(set, parts)) == set(whole) and sum(map(len, parts)) == len(whole)
    for part in parts:  # interleaved: every shard has fits of every budget and both draws
        assert {k[KEY_COLUMNS.index("budget")] for k in part} == set(map(float, BUDGETS))
        assert {k[KEY_COLUMNS.index("draw")] for k in part} == {0, 1}
    secret = shared_secret(results / "run.secret")
    assert all(secret_of(s) == secret for s in shards)  # the shards share the run secret

    code, out, err = cli(capsys, "status", "-c", str(config), "--shard", "2/3")
    assert code == 0 and "shard 2/3" in out and "9 of 9 fits stored (100.0%), 0 pending" in out, out + err
    for store in shards[:2]:  # scored shards: their metrics are not merged, the merged store is scored whole
        code, out, err = cli(capsys, "score", "--results", str(store), "--workers", "1", "--quiet")
        assert code == 0, err
    code, out, err = cli(capsys, "merge", *map(str, shards), "-o", str(tmp_path / "merged"))
    assert code == 0 and "merged shards 1/3, 2/3, 3/3" in out and "28 prediction(s)" in out, err
    assert "checked 28 row(s)" in out and "scored the merged store" in out, out
    assert keys(tmp_path / "merged") == whole
    conn = sqlite3.connect(tmp_path / "merged" / "srbf.sqlite")
    metrics = conn.execute(
        "SELECT p.problem_id, p.draw, p.budget, m.judge_stack_id FROM metrics m JOIN predictions p ON p.id = m.prediction_id"
    ).fetchall()
    stacks = conn.execute("SELECT id FROM judge_stacks").fetchall()
    trajectories = conn.execute("SELECT count(*) FROM trajectories t JOIN predictions p ON p.id = t.prediction_id").fetchone()
    conn.close()
    assert len(metrics) == 28 and len(stacks) == 1 and {m[3] for m in metrics} == {stacks[0][0]}
    assert {m[:3] for m in metrics} == {(k[4], k[5], k[6]) for k in whole}
    assert trajectories[0] == 28  # the swiss method reports one incumbent per fit
    assert secret_of(tmp_path / "merged") == secret
    code, out, err = cli(capsys, "status", "-c", str(config), "--results", str(tmp_path / "merged"))
    assert code == 0 and "28 of 28 fits stored (100.0%), 0 pending" in out, out + err
    # the merged store resumes as a whole run: nothing left to do
    code, out, err = cli(capsys, "run", "-c", str(config), "--results", str(tmp_path / "merged"), "--json")
    assert code == 0 and '"pending": 0' in out, err


@pytest.mark.slow
def test_a_missing_shard_is_refused_unless_partial(tmp_path, capsys, config):
    run_shards(capsys, config, 3, [1, 3])
    stores = [str(tmp_path / "results" / f"shard-{k}-of-3") for k in (1, 3)]
    code, out, err = cli(capsys, "merge", *stores, "-o", str(tmp_path / "merged"))
    assert code == 2 and "shard(s) 2/3 missing; pass --allow-partial" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "merged").exists()
    code, out, err = cli(capsys, "merge", *stores, "-o", str(tmp_path / "merged"), "--allow-partial")
    assert code == 0 and "missing shards: 2/3" in out and "19 prediction(s)" in out, err
    code, out, err = cli(capsys, "status", "-c", str(config), "--results", str(tmp_path / "merged"))
    assert "19 of 28 fits stored (67.9%), 9 pending" in out


@pytest.mark.slow
def test_a_duplicate_shard_is_refused(tmp_path, capsys, config):
    run_shards(capsys, config, 2)
    first = tmp_path / "results" / "shard-1-of-2"
    shutil.copytree(first, tmp_path / "copy")
    code, out, err = cli(capsys, "merge", str(first), str(tmp_path / "copy"), str(tmp_path / "results" / "shard-2-of-2"),
                         "-o", str(tmp_path / "merged"))  # fmt: skip
    assert code == 2 and "shard 1/2 given twice" in err and not (tmp_path / "merged").exists()


@pytest.mark.slow
def test_shards_of_different_configs_or_secrets_are_refused(tmp_path, capsys, config):
    run_shards(capsys, config, 2, [1])
    other = swiss_config(tmp_path, n=N_PROBLEMS, draws=DRAWS, budgets=BUDGETS, workers=1, options={"mode": "slow", "seconds": 0},
                         name="other.yaml")  # fmt: skip
    code, out, err = cli(capsys, "run", "-c", str(other), "--shard", "2/2", "--results", str(tmp_path / "other"), "--quiet")
    assert code == 0, err
    code, out, err = cli(capsys, "merge", str(tmp_path / "results" / "shard-1-of-2"), str(tmp_path / "other"),
                         "-o", str(tmp_path / "merged"))  # fmt: skip
    assert code == 2 and "different configs (config hashes" in err and "not one run" in err, err
    # the same config, shard 2 under another secret file
    code, out, err = cli(capsys, "run", "-c", str(config), "--shard", "2/2", "--results", str(tmp_path / "lone"),
                         "--secret-file", str(tmp_path / "elsewhere.secret"), "--quiet")  # fmt: skip
    assert code == 0, err
    code, out, err = cli(capsys, "merge", str(tmp_path / "results" / "shard-1-of-2"), str(tmp_path / "lone"),
                         "-o", str(tmp_path / "merged"))  # fmt: skip
    assert code == 2 and "different run secrets" in err, err
    # a different split of the same run
    code, out, err = cli(capsys, "run", "-c", str(config), "--shard", "2/3", "--quiet")
    assert code == 0, err
    code, out, err = cli(capsys, "merge", str(tmp_path / "results" / "shard-1-of-2"),
                         str(tmp_path / "results" / "shard-2-of-3"), "-o", str(tmp_path / "merged"))  # fmt: skip
    assert code == 2 and "split in 3 and 2 shards" in err, err


@pytest.mark.slow
def test_a_fit_stored_in_two_shards_is_refused(tmp_path, capsys, config):
    """A shard store tampered into claiming another shard's number still cannot merge its fits twice."""
    run_shards(capsys, config, 2, [1])
    forged = tmp_path / "forged"
    shutil.copytree(tmp_path / "results" / "shard-1-of-2", forged)
    conn = sqlite3.connect(forged / "srbf.sqlite")
    conn.execute("UPDATE shard SET k = 2")
    conn.commit()
    conn.close()
    code, out, err = cli(capsys, "merge", str(tmp_path / "results" / "shard-1-of-2"), str(forged),
                         "-o", str(tmp_path / "merged"), "--allow-partial")  # fmt: skip
    assert code == 2 and "is already in another shard" in err and "problem_id=p" in err, err
    assert not (tmp_path / "merged").exists() and not list(tmp_path.glob("merged*"))


@pytest.mark.slow
def test_a_store_belongs_to_one_shard(tmp_path, capsys, config):
    run_shards(capsys, config, 2, [1])
    shard_store = str(tmp_path / "results" / "shard-1-of-2")
    code, out, err = cli(capsys, "run", "-c", str(config), "--shard", "2/2", "--results", shard_store, "--quiet")
    assert code == 2 and "holds shard 1/2, not 2/2" in err
    code, out, err = cli(capsys, "run", "-c", str(config), "--results", shard_store, "--quiet")
    assert code == 2 and "holds shard 1/2 of a sharded run" in err
    code, out, err = cli(capsys, "run", "-c", str(config), "--shard", "1/2", "--limit", "3", "--quiet")
    assert code == 2 and "of a different run" in err
    code, out, err = cli(capsys, "status", "-c", str(config), "--results", shard_store)
    assert code == 0 and "a store of shard 1/2: pass --shard 1/2" in out
    code, out, err = cli(capsys, "merge", str(tmp_path / "results"), "-o", str(tmp_path / "m"))
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize("text", ["3/2", "0/2", "x", "1/", "2"])
def test_bad_shard_flags_are_one_line(tmp_path, capsys, config, text):
    code, out, err = cli(capsys, "run", "-c", str(config), "--shard", text)
    assert code == 2 and err.startswith("srbf: error: --shard") and len(err.splitlines()) == 1
    with pytest.raises(ShardError):
        Shard.parse(text)


def test_the_secret_file_is_made_once_and_checked(tmp_path):
    path = tmp_path / "run.secret"
    first = shared_secret(path)
    assert len(first) == 32 and shared_secret(path) == first and oct(path.stat().st_mode)[-3:] == "600"
    path.write_text("not hex\n")
    with pytest.raises(ShardError, match="expected 64 hexadecimal digits"):
        shared_secret(path)
