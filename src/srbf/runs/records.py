"""The plain records that travel between planner, executor, worker and store.

A ``TaskKey`` identifies one fit (the key of ARCHITECTURE.md): rerunning a config skips every key
already in the store. A ``FitTask`` is what a worker needs to run it (never the truth, never the
validation points); a ``FitResult`` is what comes back, whatever happened to the method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

STATUSES = ("ok", "failed", "timeout", "crashed", "placeholder")


@dataclass(frozen=True)
class TaskKey:
    """One fit: method and configuration, problem and draw, budget, condition and seed."""

    method: str
    config_hash: str
    catalog: str
    catalog_version: int
    problem_id: str
    draw: int
    budget: float
    condition: str  # canonical text of the data condition, e.g. "n_support=512;noise=0"
    seed: int


@dataclass(frozen=True)
class FitTask:
    """What a worker receives: the support points and their column names, the budget and options.
    The sampled problem's hashes go with it to the store; they are not sent to the worker."""

    key: TaskKey
    X: np.ndarray
    y: np.ndarray
    variables: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    time_limit: float = 600.0
    data_hash: str = ""
    inputs_hash: str = ""
    method_seed: int | None = None  # the seed the method gets (the driver derives one); None: key.seed


@dataclass
class FitResult:
    """What came back from one fit. ``status`` is one of STATUSES; times are in seconds."""

    status: str
    expression: str | None = None
    error: str | None = None
    wall_seconds: float | None = None
    cpu_seconds: float | None = None
    method_seconds: float | None = None  # the method's own report of its fit time, if any
    internals: dict[str, Any] = field(default_factory=dict)  # constants, front, log-probability, ...
    trajectory: list[tuple[float, str]] = field(default_factory=list)  # (seconds since start, expression)
    stderr_tail: str = ""
