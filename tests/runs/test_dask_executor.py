"""The Dask executor on a real LocalCluster of 2 worker processes: the same stored results as the
local executor, and a Dask worker killed mid-run costs nothing but time."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import threading
import time
import warnings

import pytest

pytestmark = pytest.mark.slow

distributed = pytest.importorskip(
    "distributed", reason="dask/distributed are not installed (the srbf[cluster] extra; refresh the lock with make lock)"
)

from driver_helpers import rows, swiss_config  # noqa: E402
from srbf.cli import main  # noqa: E402
from srbf.runs.config import load_config  # noqa: E402
from srbf.runs.dask_executor import DaskExecutor  # noqa: E402
from srbf.runs.driver import RunError, run_config  # noqa: E402
from srbf.store import KEY_COLUMNS, DuplicateKeyWarning  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    import dask

    from srbf.runs.dask_cluster import LEAN_SETTINGS

    with dask.config.set(LEAN_SETTINGS):  # as docs/cluster.md recommends for workers started by hand
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                                           dashboard_address=None)  # fmt: skip
    client = distributed.Client(cluster, set_as_default=False)
    yield cluster, client
    client.close()
    cluster.close()


def stored(results) -> list[tuple]:
    conn = sqlite3.connect(f"file:{results / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute(
            f"SELECT {', '.join(KEY_COLUMNS)}, status, expression, error, data_hash, inputs_hash FROM predictions"
        ).fetchall())  # fmt: skip
    finally:
        conn.close()


def test_dask_stores_what_the_local_executor_stores(tmp_path, capsys, cluster):
    config = swiss_config(tmp_path, n=6, draws=2, budgets=(1, 2), sweeps=[{"option": "mode", "values": ["ok", "raise"]}])
    assert main(["run", "-c", str(config), "--results", str(tmp_path / "local"), "--quiet"]) == 0
    code = main(["run", "-c", str(config), "--results", str(tmp_path / "dask"), "--quiet",
                 "--executor", "dask", "--scheduler", cluster[0].scheduler_address])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0 and "48 of 48 fit(s) recorded" in out, err
    local, dask = stored(tmp_path / "local"), stored(tmp_path / "dask")
    assert len(local) == 48 and dask == local
    assert {row[len(KEY_COLUMNS)] for row in dask} == {"ok", "failed"}  # the raising variant failed on p01


def test_a_dask_worker_killed_mid_run_loses_nothing(tmp_path, cluster):
    log = tmp_path / "fits.log"
    n, draws = 12, 2
    config = load_config(swiss_config(tmp_path, n=n, draws=draws, options={"mode": "slow", "seconds": 0.3}, log=log))
    results = tmp_path / "results"
    client = cluster[1]
    killed = []

    def kill_one_worker():
        deadline = time.monotonic() + 120
        while len(rows(results)) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = next(iter(client.run(os.getpid).values()))
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    with DaskExecutor(scheduler=cluster[0].scheduler_address) as executor:
        assert executor.workers == 2
        killer.start()
        with warnings.catch_warnings():
            warnings.simplefilter("error", DuplicateKeyWarning)  # a fit recorded twice would fail the run
            summary = run_config(config, executor=executor, progress=False)
    killer.join(5)
    assert killed, "the worker was not killed during the run"
    got = rows(results)
    keys = [(r[2], r[3], r[4]) for r in got]
    assert len(got) == n * draws and len(set(keys)) == n * draws  # complete, no duplicates
    assert summary.statuses == {"ok": n * draws}  # the killed worker's fits ran again elsewhere
    started = log.read_text().splitlines()
    assert len(started) > n * draws  # some fits were in flight on the killed worker and ran twice


def test_a_method_that_cannot_start_stops_a_dask_run_before_any_fit(tmp_path, cluster):
    config = load_config(swiss_config(tmp_path, n=3, options={"setup": "raise"}))
    with DaskExecutor(scheduler=cluster[0].scheduler_address) as executor:
        with pytest.raises(RunError, match="setup exploded.*nothing was run"):
            run_config(config, executor=executor, progress=False)
    assert rows(tmp_path / "results") == []


@pytest.mark.parametrize("flags, message", [
    (["--executor", "dask"], "give either --scheduler ADDRESS or --local N"),
    (["--executor", "dask", "--local", "2", "--scheduler", "tcp://x:1"], "give either --scheduler ADDRESS or --local N"),
    (["--local", "2"], "add --executor dask"),
    (["--executor", "dask", "--scheduler", "bogus://nowhere:1"], "unknown address scheme 'bogus'"),
    (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"], "cannot connect to 127.0.0.1:1"),
])  # fmt: skip
def test_executor_flag_errors_are_one_line(tmp_path, capsys, flags, message):
    config = swiss_config(tmp_path, n=2)
    code = main(["run", "-c", str(config), *flags])
    out, err = capsys.readouterr()
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def dask_config(key: str):
    import dask

    return dask.config.get(key)


def test_fits_whose_dask_worker_dies_past_the_retries_are_recorded_crashed(tmp_path):
    """--local with no retries: the batch on the killed worker comes back crashed, naming why."""
    config = load_config(swiss_config(tmp_path, n=8, options={"mode": "slow", "seconds": 0.5}))
    results = tmp_path / "results"
    with DaskExecutor(local=2, max_retries=0, batch_size=2) as executor:
        pids = list(executor.client.run(os.getpid).values())
        assert len(pids) == 2
        # the LocalCluster's workers run without the dashboard's profiler, and with this process's
        # malloc settings (a Dask nanny would otherwise set MALLOC_TRIM_THRESHOLD_ for them)
        lean = executor.client.run(lambda: (dask_config("distributed.worker.profile.enabled"),
                                            os.environ.get("MALLOC_TRIM_THRESHOLD_")))  # fmt: skip
        assert set(lean.values()) == {(False, os.environ.get("MALLOC_TRIM_THRESHOLD_"))}

        def kill_one_worker():
            deadline = time.monotonic() + 120
            while not rows(results) and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(pids[0], signal.SIGKILL)

        killer = threading.Thread(target=kill_one_worker, daemon=True)
        killer.start()
        summary = run_config(config, executor=executor, progress=False)
        killer.join(5)
    got = rows(results)
    assert len(got) == 8 and len({r[2] for r in got}) == 8
    crashed = [r for r in got if r[5] == "crashed"]
    assert crashed and summary.statuses["crashed"] == len(crashed) and summary.statuses["ok"] == 8 - len(crashed)
    assert all("the Dask workers running it died" in r[7] for r in crashed)


def test_dask_batches_follow_the_methods_pace(tmp_path, cluster):
    from collections import deque

    from srbf.runs.dask_executor import BATCH_SECONDS, MAX_BATCH
    from srbf.runs.plan import make_plan

    config = load_config(swiss_config(tmp_path, n=400, budgets=(1, 2)))
    fits = make_plan(config).fits  # p001 budget 1, p001 budget 2, p002 budget 1, ...
    spec = fits[0].spec
    with DaskExecutor(scheduler=cluster[0].scheduler_address) as executor:
        pending = deque(fits)
        first = executor._take(pending, 6)
        assert [f.key.budget for f in first] == [1, 2]  # nothing known yet: one fit, with its draw's other rung
        executor._pace[spec] = BATCH_SECONDS / 1000  # a thousand fits in half a second, but at most MAX_BATCH
        cheap = executor._take(pending, 1)  # a window of one batch: no share to leave
        assert len(cheap) == MAX_BATCH and cheap[0] is fits[2]
        executor._pace[spec] = 5.0  # a slow method: one fit (and its rung) at a time
        assert len(executor._take(pending, 6)) == 2
        executor._pace[spec] = 0.001
        while len(pending) > 60:
            pending.popleft()
        share = executor._take(pending, 6)  # 60 left for a window of 6: a sixth, rounded to whole draws
        assert len(share) == 10 and len({f.key.problem_id for f in share}) == 5


def test_a_local_cluster_run_from_the_command_line_stores_what_the_local_executor_stores(tmp_path, capsys):
    """--local N: the LocalCluster starts while the run plans, and is stopped at the end, also by
    a run that finds nothing left to do."""
    config = swiss_config(tmp_path, n=4, draws=2)
    assert main(["run", "-c", str(config), "--results", str(tmp_path / "local"), "--quiet"]) == 0
    dask_run = ["run", "-c", str(config), "--results", str(tmp_path / "dask"), "--quiet", "--executor", "dask", "--local", "2"]
    assert main(dask_run) == 0
    assert "8 of 8 fit(s) recorded" in capsys.readouterr().out
    assert main(dask_run) == 0  # resumed: nothing to run
    assert "0 of 0 fit(s) recorded" in (out := capsys.readouterr().out) and "8 already stored" in out
    assert stored(tmp_path / "dask") == stored(tmp_path / "local")


def test_a_local_cluster_that_cannot_start_fails_in_one_line_where_it_is_needed():
    import dask

    from srbf.runs.dask_cluster import ClusterError, DaskCluster

    with dask.config.set({"distributed.worker.multiprocessing-method": "no-such-method"}):
        cluster = DaskCluster(local=1)  # returns at once: the LocalCluster starts in the background
        assert cluster.workers == 1
        with pytest.raises(ClusterError, match=r"^--executor dask: a LocalCluster of 1 worker\(s\): "):
            cluster.client  # noqa: B018 - waits for the start, which failed
    assert cluster.client is None  # said once; what was started is stopped
    cluster.close()


def test_a_local_clusters_workers_collect_as_a_slot_does():
    import gc

    from srbf.runs.dask_cluster import DaskCluster
    from srbf.core import GC_THRESHOLDS

    cluster = DaskCluster(local=1)
    try:
        assert list(cluster.client.run(gc.get_threshold).values()) == [GC_THRESHOLDS]  # dask_setup ran there
        assert all(count > 0 for count in cluster.client.run(gc.get_freeze_count).values())
        # a heartbeat that meets the closing scheduler is not reported; other worker errors are
        shown = cluster.client.run(lambda: [logging.getLogger("distributed.worker").filter(logging.LogRecord(
            "distributed.worker", logging.ERROR, "worker.py", 1, message, None, None)) for message in (
            "Failed to communicate with scheduler during heartbeat.", "Compute Failed")])  # fmt: skip
        assert list(shown.values()) == [[False, True]]
    finally:
        cluster.close()


def test_workers_started_by_hand_keep_their_heartbeat_errors(cluster):
    from srbf.runs.dask_cluster import dask_setup

    _, client = cluster
    client.run(lambda dask_worker: dask_setup(dask_worker))  # what --preload srbf.runs.dask_cluster runs in a worker started by hand
    shown = client.run(lambda: logging.getLogger("distributed.worker").filter(logging.LogRecord(
        "distributed.worker", logging.ERROR, "worker.py", 1, "Failed to communicate with scheduler during heartbeat.",
        None, None)))  # fmt: skip
    assert set(shown.values()) == {True}
