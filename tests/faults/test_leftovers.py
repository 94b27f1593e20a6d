"""Nothing outlives its command: each case counts the processes it starts (``leftovers``) before
and after, including when ``srbf run``, ``srbf score`` or a worker's guard is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_run import faulty_method, srbf, write_config
from leftovers import case_env, left_after, marked

from srbf.methods.isolation import sandbox_problem

pytestmark = pytest.mark.slow

SESSION_SLEEPER = """
import subprocess, sys, time

def fit(X, y, *, budget, seed, variables, options, report):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    time.sleep(600)
"""


def _started(marker: Path, command: list[str], env: dict) -> subprocess.Popen:
    assert marked(marker) == []
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(what, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while not (found := what()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return found


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _sleeper_config(folder: Path) -> Path:
    method = folder / "sleeper.py"
    method.write_text(SESSION_SLEEPER)
    spec = {"name": "sleeper", "adapter": {"type": "file", "path": str(method)}, "time_limit": 120,
            "config_provenance": "harness_tuned"}  # fmt: skip
    return write_config(folder, [spec], problems=1)


@pytest.mark.parametrize("sandbox", [False, True], ids=["plain", "sandbox"])
def test_sigkill_of_srbf_run_leaves_nothing(tmp_path, sandbox):
    if sandbox and sandbox_problem():
        pytest.skip(sandbox_problem())
    marker = tmp_path / "tmp"
    command = [sys.executable, "-m", "srbf", "run", "-c", str(_sleeper_config(tmp_path)), "--quiet"]
    run = _started(marker, command + (["--sandbox"] if sandbox else []), case_env(marker))
    try:  # the method's own session process is up: srbf, a slot, a guard, a worker and it
        _wait_for(lambda: any(b"time.sleep(600)" in _command_line(p) for p in marked(marker)))
        run.send_signal(signal.SIGKILL)
        run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == -signal.SIGKILL
    assert left_after(marker) == []


def test_sigkill_of_the_guard_leaves_nothing_and_the_run_goes_on(tmp_path):
    marker = tmp_path / "tmp"
    config = _sleeper_config(tmp_path)
    document = config.read_text().replace("time_limit: 120", "time_limit: 60")
    config.write_text(document)
    run = _started(marker, [sys.executable, "-m", "srbf", "run", "-c", str(config), "--quiet"], case_env(marker))
    try:
        _wait_for(lambda: any(b"time.sleep(600)" in _command_line(p) for p in marked(marker)))
        (guard,) = [p for p in marked(marker) if b"worker_guard.py" in _command_line(p)]
        os.kill(guard, signal.SIGKILL)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    assert "1 of 1 fit(s) recorded" in out and "1 crashed" in out
    assert left_after(marker) == []


def test_a_method_that_kills_its_guard_leaves_nothing(tmp_path):
    marker = tmp_path / "tmp"
    config = write_config(tmp_path, [faulty_method(["kill_guard"])], problems=2)
    done = srbf("run", "-c", str(config), "--quiet", env=case_env(marker))
    assert done.returncode == 0 and "2 of 2 fit(s) recorded" in done.stdout, done.stderr
    assert left_after(marker) == []


def test_sigkill_of_srbf_score_leaves_no_scoring_process(tmp_path):
    marker = tmp_path / "tmp"
    config = write_config(tmp_path, ["linear"], problems=150)
    assert srbf("run", "-c", str(config), "--quiet").returncode == 0
    command = [sys.executable, "-m", "srbf", "score", "--results", str(tmp_path / "results"), "--workers", "2"]
    score = _started(marker, command, case_env(marker))
    try:  # srbf and its two scoring processes
        _wait_for(lambda: len(marked(marker)) >= 3 or score.poll() is not None)
        score.send_signal(signal.SIGKILL)
        score.wait(timeout=30)
    finally:
        if score.poll() is None:
            score.kill()
    assert score.returncode == -signal.SIGKILL  # killed in the middle of its pass
    assert left_after(marker) == []
