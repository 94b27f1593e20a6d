"""Rendering the report's figures side by side, in processes of their own.

Each figure is drawn and saved on its own (a fresh matplotlib ``Figure``, no shared state), and
rendering them is most of a report's CPU time, so :func:`start_drawing` hands them to worker
processes forked from this one: they inherit what is imported and the analysis, so a worker
costs a fork, not an interpreter and its imports. One core, one figure, or no ``fork`` on this
platform: the figures are drawn here, one after the other, with the same results.

A job names its figure function as a function or as ``"module:function"`` text, imported where
the figure is drawn: the report's own process need not import matplotlib at all. A
:class:`Painter` goes further: forked before the store is read, it imports matplotlib and the
figure code while this process reads and analyses, forks its workers as soon as it is ready, then
draws the figures (with those workers) while this process writes the tables and index.md.
"""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.util
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

Job = tuple[Callable[..., list[Path]] | str, tuple, dict[str, Any]]  # a figure function, its arguments
# what a Painter imports ahead of its jobs
DRAWING_MODULES = ("srbf.report.figures", "srbf.report.cd", "srbf.report.picture_figures")
WARM_UP = "srbf.report.agg_canvas:warm_up"  # and then runs, still ahead of them


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _run(function: Callable[..., list[Path]] | str, args: tuple, kwargs: dict[str, Any]) -> list[Path]:
    """Call a job's function, importing it first when the job names it as ``"module:function"``."""
    if isinstance(function, str):
        module, _, name = function.partition(":")
        function = getattr(importlib.import_module(module), name)
    return function(*args, **kwargs)


class Drawing:
    """Figures being drawn; :meth:`wait` returns every written path, in the order of the jobs."""

    def __init__(self, futures: list[Future] | None = None, done: list[list[Path]] | None = None,
                 pool: ProcessPoolExecutor | None = None):
        self._futures, self._done, self._pool = futures or [], done, pool

    def wait(self) -> list[Path]:
        try:
            results = self._done if self._done is not None else [f.result() for f in self._futures]
        finally:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
        return [path for paths in results for path in paths]


def start_drawing(jobs: Sequence[Job], workers: int | None = None) -> Drawing:
    """Start drawing ``jobs`` (at most ``workers`` processes; default: the usable cores)."""
    jobs = list(jobs)
    workers = min(workers or usable_cores(), len(jobs))
    if workers < 2 or not _can_fork():
        return Drawing(done=[_run(*job) for job in jobs])
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    return Drawing([pool.submit(_run, *job) for job in jobs], pool=pool)


_helpers: ProcessPoolExecutor | None = None  # in a Painter's process: helpers forked ahead of its first batch


def _fork_helpers(count: int) -> ProcessPoolExecutor:
    """``count`` processes forked from this one now (a fork context starts them all at the first
    submit), stopped when this process ends if no batch has used them."""
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))
    multiprocessing.util.Finalize(pool, pool.shutdown, kwargs={"cancel_futures": True}, exitpriority=20)
    pool.submit(int)
    return pool


def _prepare(workers: int) -> None:
    """A Painter's process while the report's data are read elsewhere: import the figure code, warm
    up, then fork the helpers of the first batch, so that they inherit both and the fork costs no
    time once the figures have come."""
    global _helpers
    for module in DRAWING_MODULES:
        importlib.import_module(module)
    _run(WARM_UP, (), {})
    if workers >= 2:
        _helpers = _fork_helpers(workers - 1)


def _draw_all(jobs: list[Job], workers: int) -> list[Path]:
    """``jobs`` drawn here and in ``workers - 1`` processes forked from here (every ``workers``-th
    job here, the others shared among them; the helpers :func:`_prepare` forked, if not used yet);
    the paths in the order of the jobs."""
    global _helpers
    workers = min(workers, len(jobs))
    if workers < 2:
        return [path for job in jobs for path in _run(*job)]
    pool, _helpers = _helpers or _fork_helpers(workers - 1), None
    try:
        theirs = {i: pool.submit(_run, *job) for i, job in enumerate(jobs) if i % workers}
        mine = {i: _run(*job) for i, job in enumerate(jobs) if not i % workers}
        return [path for i in range(len(jobs)) for path in (mine[i] if i in mine else theirs[i].result())]
    finally:
        pool.shutdown(cancel_futures=True)


class Painter:
    """A drawing process started ahead of its figures (see the module's docstring). :meth:`draw`
    hands it a batch of jobs (the figures of one batch are drawn side by side, batches one after
    the other); :meth:`wait` returns every path, in the order of the batches and their jobs. With
    one usable core or no ``fork``, :meth:`draw` draws here and then. A context manager: leaving
    it stops the process."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or usable_cores()
        self._pool: ProcessPoolExecutor | None = None
        self._batches: list[Future | list[Path]] = []
        if self.workers >= 2 and _can_fork():
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
            self._pool.submit(_prepare, self.workers)  # forks now; a failure shows in the batches' results

    def draw(self, jobs: Sequence[Job]) -> None:
        """Start drawing ``jobs``."""
        jobs = list(jobs)
        if not jobs:
            return
        if self._pool is None:
            self._batches.append(start_drawing(jobs, self.workers).wait())
        else:
            self._batches.append(self._pool.submit(_draw_all, jobs, self.workers))

    def wait(self) -> list[Path]:
        """Every path written, once every batch is drawn (the first failure is raised); then :meth:`close`."""
        try:
            results = [batch.result() if isinstance(batch, Future) else batch for batch in self._batches]
        finally:
            self.close()
        return [path for paths in results for path in paths]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Painter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
