"""A fit's CPU time and peak memory are the worker's whole process tree's, read from outside the
method (``srbf.methods.process_tree``), and its wall time is the parent's: a method's processes
count wherever they run, and what the method claims counts for nothing."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from srbf.core import FitTask, TaskKey
from srbf.methods import Worker

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process tree is read from /proc")]

KEY = TaskKey("m", "h", "c", 1, "p", 0, 1.0, "n_support=16;noise=0", 0)
MIB = 2**20

METHOD = """
import os, subprocess, sys, time

BURN = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.6: pass\\nopen('burnt', 'w').close()"
HOLD = "import time\\nblock = bytearray(200 * 2**20)\\nblock[::4096] = b'x' * (200 * 256)\\ntime.sleep(1.0)"

def burnt():
    # wait (not for the process) until the burner is done, then a moment for it to end
    deadline = time.time() + 60
    while not os.path.exists("burnt") and time.time() < deadline:
        time.sleep(0.02)
    os.remove("burnt")
    time.sleep(0.3)

def fit(X, y, *, budget, seed, variables, options, report):
    what = options["what"]
    if what == "unwaited_burns":  # a process in a session of its own, never waited for by the method
        subprocess.Popen([sys.executable, "-c", BURN], start_new_session=True)
        burnt()
    elif what == "orphan_burns":  # the same, double-forked: adopted (and collected) by the guard
        spawn = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', %r], start_new_session=True)" % BURN
        subprocess.run([sys.executable, "-c", spawn])
        burnt()
    elif what == "child_holds":
        child = subprocess.Popen([sys.executable, "-c", HOLD])
        time.sleep(0.6)
        child.wait()
    elif what == "claims":
        time.sleep(0.5)
        return {"expression": "x0", "fit_seconds": 1e-6}
    return {"expression": "x0"}
"""


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    path = tmp_path_factory.mktemp("measured") / "method.py"
    path.write_text(textwrap.dedent(METHOD))
    with Worker(path) as started:
        yield started


def fit(worker: Worker, what: str):
    X = np.linspace(0, 1, 16).reshape(-1, 1)
    return worker.fit(FitTask(KEY, X, X[:, 0], ("x0",), options={"what": what}, time_limit=30))


@pytest.mark.parametrize("what", ["unwaited_burns", "orphan_burns"])
def test_the_cpu_of_a_process_the_method_never_waited_for_is_counted(worker, what):
    result = fit(worker, what)
    assert result.status == "ok" and 0.5 <= result.cpu_seconds < 1.2, result  # it burned 0.6 s; the worker slept


def test_the_memory_of_a_child_process_is_in_the_peak(worker):
    result = fit(worker, "child_holds")
    assert result.status == "ok" and result.peak_memory_bytes >= 200 * MIB, result


def test_the_methods_claim_is_kept_apart_and_the_wall_time_is_measured(worker):
    result = fit(worker, "claims")
    assert result.method_seconds == 1e-6 and 0.5 <= result.wall_seconds < 1.0
    assert result.peak_memory_bytes > 0 and 0 <= result.cpu_seconds < 0.25


def test_a_memory_limit_stops_the_fit_and_the_next_fit_runs(worker, tmp_path):
    path = tmp_path / "method.py"
    path.write_text(textwrap.dedent(METHOD))
    with Worker(path, memory_limit=150 * MIB) as limited:
        over = fit(limited, "child_holds")
        after = fit(limited, "claims")
    assert over.status == "memory_limit" and over.peak_memory_bytes > 150 * MIB
    assert "over its memory_limit of 150 MiB" in over.error
    assert after.status == "ok" and limited.restarts == 1
