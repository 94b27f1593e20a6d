"""Shared pieces of the fault suite: a two-problem catalog, configs running ``faulty.py``, and
``srbf`` run as a real command (a subprocess, as a user runs it)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from leftovers import case_env, left_after, marked

HERE = Path(__file__).resolve().parent
FAULTY = HERE / "faulty.py"


def problem_of(index: int, *, fault: bool) -> str:
    """The problem that commits fault ``index`` of the list (or the honest one right after it)."""
    return f"p{2 * index + (1 if fault else 2):03d}"


def write_catalog(folder: Path, n: int) -> Path:
    """Problems p001..pN with y = x + k, x in [0, 1): the method reads k as floor(min(y))."""
    document = {
        "srbf_catalog": 1,
        "name": "faults",
        "version": 1,
        "description": "Problems whose targets carry their own index.",
        "problems": [
            {"id": f"p{k:03d}", "formula": f"x + {k}", "variables": [{"name": "x", "range": [0.0, 1.0]}]}
            for k in range(1, n + 1)
        ],
    }
    path = folder / "faults.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def faulty_method(faults, *, time_limit: float = 3, name: str = "faulty", **extra) -> dict:
    """The faulty method committing ``faults`` in turn, each followed by an honest fit."""
    return {
        "name": name,
        "adapter": {"type": "file", "path": str(FAULTY)},
        "options": {"faults": list(faults)},
        "time_limit": time_limit,
        "config_provenance": "harness_tuned",
        **extra,
    }


def write_config(folder: Path, methods: list, *, problems: int, workers: int = 1) -> Path:
    """A config over ``problems`` problems of the test catalog; one worker by default, so that
    every fault is followed by its honest fit in the same worker (the one that must recover)."""
    document = {
        "experiment": "faults",
        "results": str(folder / "results"),
        "catalogs": [str(write_catalog(folder, problems))],
        "sampling": {"n_support": 16, "n_validation": 16, "draws": 1},
        "budgets": [1],
        "workers": workers,
        "methods": methods,
    }
    path = folder / "run.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def srbf(*args: str, timeout: float = 300, pythonpath: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``srbf ARGS`` in a subprocess; output decoded leniently (the test judges what was written).
    Without ``env`` (a caller counting on its own), the processes it started are counted before
    and after (``leftovers``): AssertionError if any is left running."""
    marker = None
    if env is None:
        marker = Path(tempfile.mkdtemp(prefix="srbf-case-"))
        env = case_env(marker)
        assert marked(marker) == []
    env = dict(env)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "srbf", *args], capture_output=True, timeout=timeout, env=env,
            text=True, encoding="utf-8", errors="backslashreplace",
        )  # fmt: skip
        if marker is not None:
            left = left_after(marker)
            assert left == [], f"srbf {' '.join(args)} left {len(left)} process(es) running: {left}"
        return done
    finally:
        if marker is not None:
            shutil.rmtree(marker, ignore_errors=True)


def stored(results: Path, columns: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{results / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        conn.text_factory = bytes  # read the raw bytes, to check that they are valid UTF-8
        return conn.execute(f"SELECT {columns} FROM predictions ORDER BY id").fetchall()
    finally:
        conn.close()
