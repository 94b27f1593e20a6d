"""A reader in another process while a run writes; a writer killed with SIGKILL mid-loop."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from srbf.store import ResultsStore

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="uses POSIX processes and signals")]


def test_reader_process_reads_while_writer_commits(tmp_path, child, make_key, make_result):
    n = 150
    with ResultsStore(tmp_path) as store:
        campaign = store.start_campaign("concurrent", {}, "cfg-1", "harness_tuned", git=None)
        command, env = child("_child_reader.py", tmp_path, n)
        reader = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert reader.stdout.readline().strip() == "ready", reader.stderr.read()
            for i in range(n):
                store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h")
                time.sleep(0.002)
            out, err = reader.communicate(timeout=90)
        finally:
            reader.kill()
    assert reader.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["last"] == n
    assert summary["distinct_counts"] >= 3, summary  # it really read while rows were arriving


def _wait_for(process: subprocess.Popen, wanted: str) -> list[str]:
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"writer exited early: {process.stderr.read()}")
        lines.append(line.strip())
        if lines[-1] == wanted:
            return lines
    raise AssertionError(f"no {wanted!r} from the writer in 60 s")


def _check_consistent(path) -> int:
    """Integrity check, and every prediction with its whole trajectory; the number of rows."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute(
        "SELECT p.id, p.seed, count(t.step) FROM predictions p"
        " LEFT JOIN trajectories t ON t.prediction_id = p.id GROUP BY p.id ORDER BY p.id"
    ).fetchall()
    conn.close()
    assert [row[1] for row in rows] == list(range(len(rows)))  # seeds 0..n-1: no gaps, no doubles
    assert all(steps == seed % 4 + 1 for _, seed, steps in rows)
    return len(rows)


def test_kill_after_commits_keeps_exactly_the_committed_rows(tmp_path, child):
    command, env = child("_child_writer.py", tmp_path, 25)
    writer = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(writer, "done")
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert _check_consistent(tmp_path / "srbf.sqlite") == 25
    with ResultsStore.open_readonly(tmp_path) as reader:
        assert len(reader.predictions_frame()) == 25


def test_kill_mid_loop_loses_at_most_the_fit_in_flight(tmp_path, child, make_result):
    command, env = child("_child_writer.py", tmp_path, -1)
    writer = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(writer, "40")
    finally:
        os.kill(writer.pid, signal.SIGKILL)  # while it keeps recording
        writer.wait(timeout=30)
    printed = [line for line in writer.stdout.read().split() if line.isdigit()]
    confirmed = int(printed[-1]) if printed else 40
    stored = _check_consistent(tmp_path / "srbf.sqlite")
    # every commit the writer reported is there; at most one more (committed, not yet printed)
    assert stored in (confirmed, confirmed + 1)

    # and a rerun resumes by key
    from srbf.core import TaskKey

    planned = [
        TaskKey("linear", "cfg-1", "nguyen", 1, f"p{i}", 0, 60.0, "noise=0", i) for i in range(stored + 5)
    ]
    with ResultsStore(tmp_path) as store:
        done = store.done_keys("cfg-1")
        assert len(done) == stored
        campaign = store.start_campaign("resumed", {}, "cfg-1", "harness_tuned", git=None)
        for key in planned:
            if key not in done:
                trajectory = [(0.0, "x0")] * (key.seed % 4 + 1)
                store.record(key, make_result(trajectory=trajectory), campaign_id=campaign, data_hash="h")
    assert _check_consistent(tmp_path / "srbf.sqlite") == stored + 5
