"""Times and memory are measured by srbf outside the method, through real ``srbf run`` processes:
a method that forges its result message gets its true time stored, a method that allocates past
its ``memory_limit`` is stored as ``memory_limit`` with its peak, and every fit has a peak."""

from __future__ import annotations

import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest
from driver_helpers import REPO, child_env, srbf_command, write_catalog, write_config

from srbf.methods.isolation import sandbox_problem

pytestmark = pytest.mark.slow

SLEEP = 2.0
MIB = 2**20

PROBE = """
import json, os, struct, sys, time
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    k = int(np.floor(np.min(y)))
    if k == 1:  # forge: sleep, then write a result of its own claiming a microsecond (then return as usual)
        time.sleep(%(sleep)r)
        frame = sys._getframe(1)
        while "fit_id" not in frame.f_locals:
            frame = frame.f_back
        header = json.dumps({"type": "result", "id": frame.f_locals["fit_id"], "status": "ok", "expression": "x + 1",
                             "wall": 1e-6, "cpu": 1e-6, "method_seconds": 1e-6}).encode()
        os.write(int(sys.argv[2]), struct.pack("<4sIQ", b"SRBW", len(header), 0) + header)
    if k == 3:  # allocate without limit
        blocks = []
        while True:
            blocks.append(np.ones(16 * 2**17))  # 16 MiB, touched
    return {"expression": "x + %%d" %% k, "fit_seconds": 1e-6}
""" % {"sleep": SLEEP}


def measured_run(folder: Path, sandbox: bool) -> dict[str, tuple]:
    folder.mkdir()
    write_catalog(folder, 4)
    method = folder / "probe.py"
    method.write_text(textwrap.dedent(PROBE))
    spec = {"name": "probe", "adapter": {"type": "file", "path": str(method)}, "time_limit": 60,
            "memory_limit": 300, "config_provenance": "harness_tuned"}  # fmt: skip
    config = write_config(folder, catalogs=[str(folder / "faults.yaml")], method=spec, budgets=[1], workers=1,
                          sampling={"n_support": 16, "n_validation": 16, "draws": 1})  # fmt: skip
    command = srbf_command("run", "-c", str(config), "--quiet", *(["--sandbox"] if sandbox else []))
    done = subprocess.run(command, cwd=REPO, env=child_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "4 of 4 fit(s) recorded" in done.stdout, done.stderr
    conn = sqlite3.connect(f"file:{folder / 'results' / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT problem_id, status, error, wall_seconds, cpu_seconds, method_seconds,"
                            " peak_memory_bytes FROM predictions").fetchall()  # fmt: skip
    finally:
        conn.close()
    return {row[0]: row[1:] for row in rows}


@pytest.mark.parametrize("sandbox", [False, True], ids=["plain", "sandbox"])
def test_times_and_memory_are_measured_outside_the_method(tmp_path, sandbox):
    if sandbox and sandbox_problem():
        pytest.skip(sandbox_problem())
    got = measured_run(tmp_path / "run", sandbox)
    status, _, wall, cpu, claimed, peak = got["p01"]
    assert status == "ok" and abs(wall - SLEEP) <= 0.1 * SLEEP  # its true time, not its 1e-6
    assert claimed == 1e-6  # what it claimed, kept apart
    assert 0 <= cpu < 0.5 * SLEEP  # it slept
    status, error, *_ = got["p02"]  # the worker's own result for p01 arrives during p02: the forgery shows
    assert status == "crashed" and "a second result for an earlier fit" in error
    status, error, _, _, _, peak = got["p03"]
    assert status == "memory_limit" and "over its memory_limit of 300 MiB" in error
    assert peak > 300 * MIB
    status, _, _, _, claimed, _ = got["p04"]
    assert status == "ok" and claimed == 1e-6  # the run went on, with a fresh worker
    assert all(row[5] is not None and row[5] > 0 for row in got.values())  # a peak for every fit
