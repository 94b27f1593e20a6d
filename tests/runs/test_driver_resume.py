"""A run killed halfway (SIGKILL) or interrupted (Ctrl-C), then run again: the driver in a subprocess."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from driver_helpers import REPO, child_env, rows, srbf_command, swiss_config

pytestmark = pytest.mark.slow

N_PROBLEMS, DRAWS = 20, 2
TOTAL = N_PROBLEMS * DRAWS


def _default_sigint():
    # A shell starts background jobs with SIGINT ignored, and Python then keeps ignoring it: give
    # the run the default action back so that it raises KeyboardInterrupt as in a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_run(config, *extra):
    return subprocess.Popen(
        srbf_command("run", "-c", str(config), "--quiet", *extra),
        preexec_fn=_default_sigint,
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_rows(results, n, proc, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(rows(results)) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} rows after {timeout} s")


def fitted(log):
    """(problem index, draw-agnostic) lines the method wrote: one per fit it started."""
    return log.read_text().splitlines() if log.exists() else []


def test_sigkill_halfway_then_rerun_resumes_without_duplicates_or_losses(tmp_path):
    log = tmp_path / "fits.log"
    config = swiss_config(tmp_path, n=N_PROBLEMS, draws=DRAWS, options={"mode": "slow", "seconds": 0.2}, log=log)
    results = tmp_path / "results"
    first = start_run(config)
    wait_for_rows(results, TOTAL // 3, first)
    first.kill()  # SIGKILL: no clean-up at all
    first.wait(10)
    before = rows(results)
    assert TOTAL // 3 <= len(before) < TOTAL
    started_before = len(fitted(log))
    second = start_run(config)
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    after = rows(results)
    assert len(after) == TOTAL
    keys = [(r[2], r[3], r[4]) for r in after]
    assert len(set(keys)) == TOTAL  # no duplicates
    assert after[: len(before)] == before  # nothing lost or changed
    assert {r[1] for r in after[len(before):]} == {max(r[1] for r in before) + 1}  # the rerun's campaign
    assert {r[5] for r in after} == {"ok"}
    # only the unfinished fits ran again
    assert len(fitted(log)) - started_before == TOTAL - len(before)
    assert f"{TOTAL - len(before)} of {TOTAL - len(before)} fit(s) recorded" in out
    assert f"{len(before)} already stored, skipped" in out


def test_ctrl_c_stops_cleanly_keeps_what_is_done_and_says_how_to_resume(tmp_path):
    log = tmp_path / "fits.log"
    config = swiss_config(tmp_path, n=N_PROBLEMS, draws=DRAWS, options={"mode": "slow", "seconds": 0.3}, log=log)
    results = tmp_path / "results"
    run = start_run(config, "--workers", "2")
    wait_for_rows(results, 4, run)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    stored = rows(results)
    assert 4 <= len(stored) < TOTAL and {r[5] for r in stored} == {"ok"}
    assert "interrupted" in out and f"To resume: srbf run -c {config} --workers" not in out
    assert f"To resume: srbf run -c {config}" in out
    assert f"{len(stored)} of {TOTAL} fit(s) recorded" in out
    # the fits in flight were killed with the run: the method's processes are gone
    pids = {line.split()[2] for line in fitted(log)}
    time.sleep(0.2)
    alive = [pid for pid in pids if _alive(int(pid))]
    assert not alive
    # and SIGTERM behaves the same
    rerun = start_run(config)
    wait_for_rows(results, len(stored) + 2, rerun)
    rerun.send_signal(signal.SIGTERM)
    out, err = rerun.communicate(timeout=30)
    assert rerun.returncode == 130 and "interrupted" in out, err
    final = rows(results)
    assert len({(r[2], r[3], r[4]) for r in final}) == len(final) and final[: len(stored)] == stored


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
