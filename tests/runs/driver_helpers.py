"""Shared pieces of the driver tests: a catalog whose problems say their index, and a method that
misbehaves on request (crash, hang, raise, print, garbage), decided by that index."""

from __future__ import annotations

import os
import sqlite3
import sys
import textwrap
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def write_catalog(folder: Path, n: int, name: str = "faults") -> Path:
    """Problems p01..pNN with y = x + k, x in [0, 1): a method reads k as floor(min(y))."""
    document = {
        "srbf_catalog": 1,
        "name": name,
        "version": 1,
        "description": "Test problems whose targets carry their own index.",
        "problems": [
            {"id": f"p{k:02d}", "formula": f"x + {k}", "variables": [{"name": "x", "range": [0.0, 1.0]}]}
            for k in range(1, n + 1)
        ],
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


SWISS = '''
import os, signal, sys, time
import numpy as np


def setup(options):
    if options.get("setup") == "raise":
        raise RuntimeError("setup exploded")
    marker = options.get("no_restart_after")
    if marker and os.path.exists(marker):
        raise RuntimeError("this method cannot start a second time")


def fit(X, y, *, budget, seed, variables, options, report):
    k = int(np.floor(np.min(y)))  # the problem's index: y = x + k with x in [0, 1)
    log = os.environ.get("SRBF_TEST_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(f"{k} {budget} {os.getpid()}\\n")
    mode = options.get("mode", "ok")
    if mode == "crash3_hang5":
        if k % 3 == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        if k % 5 == 0:
            time.sleep(60)
    elif mode == "slow":
        time.sleep(options.get("seconds", 0.05))
    elif mode == "always_crash":
        os._exit(7)
    elif mode == "crash_then_no_restart":
        open(options["no_restart_after"], "w").close()
        os._exit(5)
    elif k == 1:  # one fault per mode, on problem 1 only; problem 2 shows the worker recovered
        if mode == "raise":
            print("about to fail")
            raise ValueError("boom")
        if mode == "no_expression":
            return {"formula": "x"}
        if mode == "garbage":
            return 42
        if mode == "unparseable":
            return {"expression": "x +* )("}
        if mode == "megabytes":
            sys.stdout.write("z" * (8 << 20))
            sys.stdout.flush()
        if mode == "sleep":
            report("x")
            time.sleep(60)
        if mode == "suicide":
            os.kill(os.getpid(), signal.SIGKILL)
    report(f"x + {k}")
    return {"expression": f"x + {k}", "fit_seconds": 0.0}
'''


def write_method(folder: Path, source: str = SWISS, name: str = "swiss.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def write_config(folder: Path, name: str = "run.yaml", **fields) -> Path:
    """A config file from keyword fields (``method`` and ``catalogs`` at least)."""
    document = {"experiment": "test", "results": str(folder / "results"), **fields}
    path = folder / name
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def swiss_config(folder: Path, n: int = 4, *, options=None, sweeps=None, time_limit=30, workers=2, draws=1,
                 budgets=(1,), name: str = "run.yaml", log: Path | None = None, **extra) -> Path:  # fmt: skip
    """A config running the swiss method on ``n`` problems of the test catalog; with ``log``, the
    method appends a line per fit there (through the config's ``env``: workers get no other)."""
    catalog = write_catalog(folder, n)
    method = write_method(folder)
    spec = {
        "name": "swiss",
        "adapter": {"type": "file", "path": str(method)},
        "options": dict(options or {}),
        "time_limit": time_limit,
        "config_provenance": "harness_tuned",
    }
    if sweeps:
        spec["sweeps"] = sweeps
    if log is not None:
        spec["env"] = {"SRBF_TEST_LOG": str(log)}
    return write_config(
        folder,
        name=name,
        catalogs=[str(catalog)],
        method=spec,
        sampling={"n_support": 32, "n_validation": 32, "draws": draws},
        budgets=list(budgets),
        workers=workers,
        **extra,
    )


def rows(results: Path) -> list[tuple]:
    """(id, campaign, problem_id, draw, budget, status, expression, error) of every stored prediction."""
    path = results / "srbf.sqlite"
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(
            "SELECT id, campaign_id, problem_id, draw, budget, status, expression, error, method, config_hash"
            " FROM predictions ORDER BY id"
        ).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):  # a run is creating the store right now
            return []
        raise
    finally:
        conn.close()


def campaigns(results: Path) -> list[tuple]:
    path = results / "srbf.sqlite"
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute("SELECT id, name, config_hash, provenance FROM campaigns ORDER BY id").fetchall()
    finally:
        conn.close()


def srbf_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "srbf.cli", *args]


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env
