"""Executors: run planned fits in worker processes and hand back each result as it completes.

An executor has a small interface, so that where fits run can change without touching the driver:

- ``start(specs, later=...)``: start the workers of ``specs`` (those of the method that runs
  first) before any fit, so that a first method whose file cannot be imported (or whose ``setup``
  raises) stops the run with ``WorkerStartError`` before anything is fitted or written; the other
  methods' workers (``later``) start when their first fit is due, so the first result does not
  wait for every method's start (an executor that cannot start them then checks them here);
- ``run(fits, order, idle=...)``: an iterator of batches of ``Completed`` (the planned fit, its
  ``FitResult``, the hash of the points it saw): each batch is every result that has arrived
  since the last one, so a consumer can record a batch at once; an empty batch when nothing
  arrived for ``idle`` seconds, so a consumer holding results back (to share one commit) can act
  on time. ``order(fit)`` makes the fit's ``FitOrder`` in the calling process (its key, catalog
  entry, sampling settings and method seed; ``problems.fit_order``); the points are drawn where
  the fit runs, in a slot next to the method's worker (``slot``), never in the method's process;
  a draw that sampling gives up on comes back as a ``placeholder`` result without running anything;
  a method none of whose workers has started in this run and whose first start fails raises
  ``WorkerStartError`` (naming it) from the iterator: the run stops, as it would have at ``start``;
- ``cancel()``: from any thread, stop: fits in flight are killed and their results dropped;
- ``close()``: stop and release every worker process.

``LocalExecutor`` (``local_executor``) runs the fits in slot processes on this machine;
``DaskExecutor`` (``dask_executor``) on a Dask cluster, sending batches of orders to Dask workers
that run them through the same ``Slot`` (``dask_slot``) and streaming the results back to the
driver.
"""

from __future__ import annotations

import dataclasses
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from srbf.methods import isolation
from srbf.methods.worker import Worker, WorkerStartError
from srbf.core import FitResult
from srbf.runs.worker_spec import WorkerSpec

if TYPE_CHECKING:  # the slots import this module: no planning (config models) there
    from srbf.runs.plan import PlannedFit
    from srbf.runs.problems import FitOrder

__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "Completed",
    "Executor",
    "HeldWorker",
    "WorkerStartError",
    "default_workers",
    "first_line",
    "new_worker",
    "worker_env",
]

DEFAULT_MAX_RESTARTS = 4  # a slot stops running a method after 5 abnormal ends in a row (docs/running.md)
IDLE_SECONDS = 0.2  # how long run() waits for a result before yielding an empty batch

Order = Callable[["PlannedFit"], "FitOrder"]


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass
class Completed:
    """One planned fit and what came of it; ``data_hash`` is the hash of the points it was given,
    ``inputs_hash`` that of their inputs alone ("" when no points were drawn)."""

    fit: PlannedFit
    result: FitResult
    data_hash: str
    inputs_hash: str = ""


def first_line(text: str | None, limit: int = 200) -> str:
    """The first line of an error, shortened to ``limit`` characters (for notes and reasons)."""
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


@dataclass
class HeldWorker:
    """A slot's worker for one method, and how many abnormal ends (timeouts, crashes, failed
    restarts) it has had in a row: past ``max_restarts`` the slot stops running that method."""

    worker: Worker | None  # None until made (making it can fail: an interpreter that is gone)
    abnormal: int = 0
    last_error: str = ""

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


class Executor(ABC):
    """Where fits run. See the module docstring for the contract; ``LocalExecutor`` is the default."""

    workers: int
    on_note: Callable[[str], None]
    on_starting: Callable[[WorkerSpec], None]  # called when a ``later`` method starts (``start``)

    @abstractmethod
    def start(self, specs: Sequence[WorkerSpec], later: Sequence[WorkerSpec] = ()) -> None:
        """Start a worker for each of ``specs``; raise WorkerStartError (naming the method) if one
        cannot start. ``later`` start when their first fit is due (``on_starting(spec)`` is called
        then, in the thread that iterates ``run``), or are checked here by an executor that cannot."""

    @abstractmethod
    def run(self, fits: Sequence[PlannedFit], order: Order, *, idle: float = IDLE_SECONDS) -> Iterator[list[Completed]]:
        """Run ``fits``; yield lists of ``Completed`` (what has arrived; empty after ``idle``
        seconds without a result), in completion order, one ``Completed`` per fit in all."""

    def prestart(self, specs: Sequence[WorkerSpec] = ()) -> None:
        """Start what needs no plan yet (and, if it can, workers for ``specs``, listed as for
        ``start``), so that it starts while the driver plans (optional)."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop as soon as possible: kill the fits in flight and drop their results. Thread-safe."""

    @abstractmethod
    def close(self) -> None:
        """Cancel what is running and end every worker process."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# One fit per worker and one worker per core: the numerical libraries' own thread pools would
# oversubscribe the cores (and blur timings), so workers get one thread each unless the method's
# config (``env``) or the user's environment says otherwise.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def worker_env(spec: WorkerSpec) -> dict[str, str | None]:
    """The environment changes a worker of ``spec`` starts with: ``ONE_THREAD`` where neither the
    config nor this process sets the variable, then the config's ``env``."""
    defaults = {name: value for name, value in ONE_THREAD.items() if name not in os.environ}
    return {**defaults, **dict(spec.env)}


MEMORY_SHARE = 0.8  # of the machine's memory, shared by its workers' method processes by default


def default_memory_limit(workers: int | None = None) -> int | None:
    """The memory limit of a method without its own ``memory_limit`` (bytes): ``MEMORY_SHARE`` of
    this machine's memory divided by its ``workers`` (default: one per core), so that every
    worker at its limit together still leaves room for srbf and the system. None if unknown."""
    from srbf.methods.process_tree import machine_memory

    total = machine_memory()
    return int(MEMORY_SHARE * total / max(1, workers or default_workers())) if total else None


def new_worker(
    spec: WorkerSpec,
    *,
    start_timeout: float | None,
    tail_bytes: int,
    sandbox: isolation.Sandbox | None = None,
    workers_here: int | None = None,
) -> Worker:
    """A (not yet started) worker process for ``spec``. An interpreter given as ``env:NAME`` (a
    method environment, ``srbf methods install NAME``) is looked up here: WorkerStartError says
    what to run when it is not installed. ``workers_here``: how many workers share this machine
    (for the default memory limit; None: one per core)."""
    from srbf.methods.envs import resolve_python

    try:
        python = resolve_python(spec.python) if spec.python else None
    except ValueError as exc:  # EnvError
        raise WorkerStartError(str(exc)) from None
    from srbf.methods.srbench import DIR_OPTION, SRBENCH_MAIN

    if sandbox is not None and spec.method_file == str(SRBENCH_MAIN):  # the bridge runs a folder: show it
        sandbox = dataclasses.replace(sandbox, shown=(*sandbox.shown, str(spec.options[DIR_OPTION])))
    return Worker(
        spec.method_file,
        python=python,
        options=spec.options,
        env=worker_env(spec),
        start_timeout=start_timeout,
        tail_bytes=tail_bytes,
        limits=spec.limits,
        sandbox=sandbox,
        memory_limit=spec.memory_limit if spec.memory_limit is not None else default_memory_limit(workers_here),
    )
