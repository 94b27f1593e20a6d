"""Workers run their numerical libraries on one thread unless the config or the user says otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from srbf.runs.executor import ONE_THREAD, new_worker, worker_env
from srbf.runs.plan import WorkerSpec
from srbf.core import FitTask, TaskKey

METHOD = '''
import os


def fit(X, y, *, budget, seed, variables, options, report):
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    return {"expression": "x", "threads": {name: os.environ.get(name) for name in names}}
'''


def _spec(tmp_path, env=()) -> WorkerSpec:
    path = tmp_path / "threads.py"
    path.write_text(METHOD)
    return WorkerSpec(label="threads", method_file=str(path), python=None, options_json="{}", env=tuple(env))


def _clear(monkeypatch):
    for name in ONE_THREAD:
        monkeypatch.delenv(name, raising=False)


def test_one_thread_by_default_and_the_config_or_the_user_can_change_it(tmp_path, monkeypatch):
    _clear(monkeypatch)
    assert worker_env(_spec(tmp_path)) == ONE_THREAD
    env = worker_env(_spec(tmp_path, [("MKL_NUM_THREADS", None), ("OMP_NUM_THREADS", "4")]))
    assert env == {"OMP_NUM_THREADS": "4", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": None}
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")  # the user's own setting is inherited as it is
    assert "OPENBLAS_NUM_THREADS" not in worker_env(_spec(tmp_path))


@pytest.mark.slow
def test_the_worker_process_sees_it(tmp_path, monkeypatch):
    _clear(monkeypatch)
    worker = new_worker(_spec(tmp_path, [("OMP_NUM_THREADS", "3")]), start_timeout=60, tail_bytes=1024)
    key = TaskKey("threads", "-", "test", 1, "p1", 0, 1.0, "n_support=4;noise=0", 0)
    try:
        result = worker.fit(FitTask(key, np.zeros((4, 1)), np.zeros(4), ("x",), time_limit=30))
    finally:
        worker.close()
    assert result.status == "ok", result.error
    assert result.internals["threads"] == {"OMP_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
