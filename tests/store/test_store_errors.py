"""Clear errors: a read-only store or directory, and a full disk (with nothing half-written)."""

from __future__ import annotations

import ctypes
import os
import sqlite3
import stat
import subprocess

import pytest

from srbf.store import ResultsStore, StoreError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="uses POSIX permissions")

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _without_root_file_powers() -> None:
    """In the child before exec: drop the capabilities that let root ignore file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _run(child, action: str, path) -> str:
    """Run the read-only child as an ordinary user would (as root: without its override powers)."""
    command, env = child("_child_readonly.py", action, path)
    as_root = os.geteuid() == 0
    try:
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_without_root_file_powers if as_root else None,
        )
    except subprocess.SubprocessError as exc:
        pytest.skip(f"cannot drop root's file permissions here: {exc}")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _read_only(*paths) -> None:
    for path in paths:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@pytest.fixture
def restore_permissions(tmp_path):
    yield
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def filled(tmp_path, make_key, make_result):
    """A closed store with 3 predictions, in tmp_path/results."""
    with ResultsStore(tmp_path / "results") as store:
        campaign = store.start_campaign("a", {}, "cfg-1", "harness_tuned", git=None)
        for i in range(3):
            store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h")
    return tmp_path / "results"


@pytest.mark.slow
def test_read_only_directory_without_a_store(tmp_path, child, restore_permissions):
    directory = tmp_path / "results"
    directory.mkdir()
    _read_only(directory)
    out = _run(child, "write", directory)
    assert out.startswith("StoreError: ") and str(directory / "srbf.sqlite") in out
    assert "read-only" in out


@pytest.mark.slow
def test_directory_that_cannot_be_created(tmp_path, child, restore_permissions):
    _read_only(tmp_path)
    out = _run(child, "write", tmp_path / "new" / "results")
    assert out.startswith("StoreError: ") and str(tmp_path / "new" / "results" / "srbf.sqlite") in out
    assert "directory" in out


@pytest.mark.slow
def test_read_only_directory_and_file(filled, child, restore_permissions):
    path = filled / "srbf.sqlite"
    _read_only(path, filled)
    out = _run(child, "write", filled)
    assert out.startswith("StoreError: ") and str(path) in out and "read-only" in out
    assert _run(child, "read", filled) == "ok 3"  # readers still can


@pytest.mark.slow
def test_read_only_file_in_writable_directory(filled, child, restore_permissions):
    path = filled / "srbf.sqlite"
    _read_only(path)
    out = _run(child, "write", filled)
    assert out.startswith("StoreError: ") and str(path) in out and "read-only" in out
    assert "opening the store for writing" in out  # refused at open, not at the first record
    assert _run(child, "read", filled) == "ok 3"


def test_full_disk_names_the_file_and_writes_nothing_half(store, campaign, make_key, make_result):
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 40}")  # the disk is "full" a few pages on
    recorded = 0
    with pytest.raises(StoreError) as error:
        for i in range(1000):
            big = make_result(i, stderr_tail="x" * 20_000, trajectory=[(0.0, "y" * 3000)] * 5)
            store.record(make_key(i), big, campaign_id=campaign, data_hash="h")
            recorded += 1
    message = str(error.value)
    assert "disk is full" in message and str(store.path) in message
    assert f"seed {recorded}" in message  # what was being written
    assert len(message.splitlines()) == 1
    # exactly the committed records, each whole; and after space is freed the store goes on
    assert recorded > 0 and len(store.predictions_frame()) == recorded
    assert len(store.trajectories_frame()) == 5 * recorded
    store._conn.execute("PRAGMA max_page_count = 1073741823")
    store.record(make_key(recorded), make_result(), campaign_id=campaign, data_hash="h")
    assert len(store.predictions_frame()) == recorded + 1
    assert sqlite3.connect(store.path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
