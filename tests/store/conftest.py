"""Shared fixtures for the store tests: a fresh store in tmp_path, and makers of keys and results."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import srbf
from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore

HERE = Path(__file__).resolve().parent


def key(i: int = 0, **changes) -> TaskKey:
    """A task key numbered ``i`` (the seed), with any field overridden."""
    fields = dict(
        method="linear",
        config_hash="cfg-1",
        catalog="nguyen",
        catalog_version=1,
        problem_id=f"nguyen-{i % 12 + 1}",
        draw=i % 3,
        budget=60.0,
        condition="n_support=512;noise=0",
        seed=i,
    )
    fields.update(changes)
    return TaskKey(**fields)


def result(i: int = 0, **changes) -> FitResult:
    """A successful fit whose trajectory has ``i % 4 + 1`` steps."""
    fields = dict(
        status="ok",
        expression=f"x0 + {i}",
        wall_seconds=1.5 + i,
        cpu_seconds=1.25 + i,
        method_seconds=1.0,
        internals={"constants": [float(i), 2.0], "front": [{"loss": 0.1, "expr": "x0"}]},
        trajectory=[(0.1 * step, f"x0 + {step}") for step in range(i % 4 + 1)],
        stderr_tail="",
    )
    fields.update(changes)
    return FitResult(**fields)


@pytest.fixture
def store(tmp_path):
    with ResultsStore(tmp_path / "results") as opened:
        yield opened


@pytest.fixture
def campaign(store):
    return store.start_campaign("test", {"methods": ["linear"]}, "cfg-1", "upstream_default", git=None)


@pytest.fixture
def make_key():
    return key


@pytest.fixture
def make_result():
    return result


def child_env() -> dict[str, str]:
    """The environment for a child Python that must import this srbf (installed or not)."""
    env = dict(os.environ)
    src = str(Path(srbf.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


def child_command(script: str, *args: object) -> list[str]:
    return [sys.executable, str(HERE / script), *map(str, args)]


@pytest.fixture
def child():
    """``child(script, *args)``: the command and environment to run a helper script in a child Python."""

    def command(script: str, *args: object) -> tuple[list[str], dict[str, str]]:
        return child_command(script, *args), child_env()

    return command
