"""Rendering the report's figures side by side.

Each figure is drawn and saved on its own (a fresh matplotlib ``Figure``, no shared state), and
rendering them is most of a report's CPU time, so :func:`start_drawing` hands them to worker
processes forked from this one: they inherit the imported matplotlib and the analysis, so a worker
costs a fork, not an interpreter and its imports. The parent meanwhile writes index.md, then
collects the paths with :meth:`Drawing.wait`. One core, one figure, or no ``fork`` on this
platform: the figures are drawn here, one after the other, with the same results.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

Job = tuple[Callable[..., list[Path]], tuple, dict[str, Any]]  # a figure function, its arguments


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


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
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return Drawing(done=[function(*args, **kwargs) for function, args, kwargs in jobs])
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    return Drawing([pool.submit(function, *args, **kwargs) for function, args, kwargs in jobs], pool=pool)
