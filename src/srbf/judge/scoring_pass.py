"""The scoring pass: stored predictions in, the judge's metrics table out.

``score_store(results)`` scores every prediction of a results store that has no metrics of the
current ``JUDGE_VERSION`` yet. ``scoring_plan`` groups them by drawn problem (catalog name and
version, problem id, seed, draw index, the condition's support size and noise, the campaign's
``n_validation`` and ``ood``); ``problem_scoring`` regenerates each problem's points through the
runner's ``ProblemSource``, checks them against each prediction's stored ``data_hash``, prepares
one ``Judge`` (its ``positive`` variables from the entry's declared ranges) and scores the
problem's predictions with it. When only the targets differ (the stored ``inputs_hash`` matches:
the run's machine rounded its math functions differently), the prediction is scored on the
targets regenerated here and its metrics say so (``TARGETS_DIFFER``). Predictions whose fit did
not end ``ok`` get ``Judge.failure_record`` (success 0, rates 0, the rest None) with the status
and error as ``failure_reason``, so that rates count them; a placeholder gets one too (reason
``placeholder: ...``) and is left out of the statistics by ``srbf.store.metrics_long_frame``.

This module is the parent's side: problems, each with its catalog entry, go in chunks to worker
processes (forked on Linux as the pass starts, before it opens the store, with the judge imported;
spawned elsewhere, importing only the judge while the parent plans), or to the workers of a Dask
cluster (``scoring_dask``), which regenerate the points themselves; metrics are committed chunk by
chunk as they come back, so an interrupted pass keeps what it scored and a rerun scores only what
is missing. A prediction that cannot be scored (its points cannot be
regenerated, other inputs than the method saw, a catalog whose version changed) gets no metrics
row: the summary (``score_summary``) lists it with the reason, and a rerun tries again.
docs/metrics.md ("Scoring a results store") is the long form.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Callable

from srbf.core import collector_tuned
from srbf.judge.metric_keys import JUDGE_VERSION
from srbf.judge.problem_scoring import DrawnProblem, Outcome, close_pool, init_worker, score_chunk, unscored
from srbf.judge.score_summary import TARGETS_DIFFER, ScoreFailure, ScoreSummary, ScoringError
from srbf.judge.scoring_plan import MIN_CHUNK, PLAN_COLUMNS, chunks, planned
from srbf.judge.stack import differences, other_stack_ids
from srbf.store import ResultsStore, resolve_path
from srbf.store.jsontext import loads

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ScoreFailure", "ScoreSummary", "ScoringError", "score_store"]

SRBENCH_KEY = "srbench_symbolic_solution"


def _given(results: Any) -> tuple[ResultsStore | None, Path]:
    """The caller's open store (None when the pass is to open it) and the store's file."""
    if isinstance(results, ResultsStore):
        if results.readonly:
            raise ScoringError(f"results store {results.path}: opened read-only; the scoring pass writes metrics")
        return results, results.path
    path = resolve_path(results)
    if not path.is_file():
        raise ScoringError(f"no results store at {path} (run something first, or pass --results DIR)")
    return None, path


# Fork the scoring processes where that is safe: on Linux, before the pass opens the store (so they
# hold nothing of its connection), from a process running no other thread (one holding a lock as
# it forks would leave the lock held in the child). A forked process has the judge imported
# already (a spawned one spent about 0.3 s of CPU importing it, while the parent had imported it
# too); on macOS (whose system libraries are not fork-safe), on Windows, for a store the caller
# opened and beside other threads, they are spawned.
FORK = sys.platform.startswith("linux")


def _init_worker(parent: int) -> None:
    """A scoring process's set-up (``init_worker``), its death with ``parent`` and its end.

    It dies with the process that started it however that one ends, SIGKILL included: its
    parent-death signal is SIGKILL (Linux), and if the parent is gone already it leaves at once
    (it holds nothing to save: results travel back only to the parent). Once its pool is shut
    down and its finalizers have run, it leaves with ``os._exit``, as a forked process does,
    instead of tearing its interpreter down, which frees the samplers and formulas its caches hold
    object by object (seconds after a long pass, each process, while the pass waits)."""
    from srbf.methods.worker_guard import PR_SET_PDEATHSIG, prctl

    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    init_worker()
    atexit.register(_leave)


def _leave() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class _Dispatch:
    """Chunks scored in worker processes (or here, with one worker); outcomes as chunks complete.

    The processes start when it is made: forked (``fork``: before the store is opened, see
    ``FORK``), the modules a scoring process imports on its first problem imported here first; or
    spawned, so that their imports overlap the parent's planning (its catalog loading).
    ``submit`` hands them the chunks.

    Each chunk's process keeps what the chunk left alive (``score_chunk``'s ``freeze``); scoring
    here (one worker) calls ``keep`` after each chunk (the pass's ``collector_tuned``: it keeps
    in a process tuned for life, ``srbf score``'s, and does nothing in one called from Python)."""

    def __init__(self, workers: int, keep: Callable[[], None], fork: bool = False):
        self.workers = max(1, workers)
        self.executor = None
        self.keep = keep
        self.pending: dict = {}
        self.chunks: list[list[DrawnProblem]] = []
        self.srbench = False
        if self.workers > 1:
            if fork:
                from srbf.judge.worker_modules import WORKER_MODULES

                for name in WORKER_MODULES:
                    importlib.import_module(name)
            context = multiprocessing.get_context("fork" if fork else "spawn")
            self.executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_init_worker, initargs=(os.getpid(),)
            )
            for _ in range(self.workers):  # each submit starts one process, up to ``workers`` (all at once when forked)
                self.executor.submit(int)

    def submit(self, chunks: Iterable[list[DrawnProblem]], srbench: bool) -> None:
        """Hand out every chunk of ``chunks``, each as it comes (the processes start on the first
        ones while the plan makes the rest)."""
        self.chunks, self.srbench = list(chunks) if self.executor is None else [], srbench
        if self.executor is not None:
            self.pending = {self.executor.submit(score_chunk, chunk, srbench, True): chunk for chunk in chunks}

    def __iter__(self) -> Iterator[list[Outcome]]:
        if self.executor is None:
            for chunk in self.chunks:
                outcomes = score_chunk(chunk, self.srbench)
                self.keep()
                yield outcomes
            return
        while self.pending:  # the chunks done by then together: one commit (one sync to disk) for them
            done, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            outcomes: list[Outcome] = []
            for future in done:
                chunk = self.pending.pop(future)
                try:
                    outcomes += future.result()
                except BrokenProcessPool as error:  # a worker died: say so for what it held
                    outcomes += unscored(chunk, f"a scoring process died ({error})")
            yield outcomes

    def close(self) -> None:
        """Stop the workers (chunks not started are dropped) and this process's SymPy worker."""
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None
        close_pool()


def _default_workers() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _progress(total: int, show: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="scoring", unit="prediction", file=sys.stderr, disable=not show,
                dynamic_ncols=True, smoothing=0.1)  # fmt: skip


def _other_stacks(store: ResultsStore, summary: ScoreSummary, replace: set[int], force: bool) -> set[int]:
    """``replace`` plus the rows of this judge version scored with another stack when ``force``;
    otherwise ``replace`` without them, and the summary says how many were kept and what differs."""
    stored = store.metric_stack_rows(JUDGE_VERSION)
    other = other_stack_ids(stored, summary.stack)
    if force:
        return replace | other
    summary.other_stack, summary.other_stack_change = len(other), differences(stored, other, summary.stack)
    return replace - other


def _without_srbench(store: ResultsStore) -> set[int]:
    """The predictions whose metrics of this judge version were scored without the SymPy check."""
    return {int(row.prediction_id) for row in store.metric_rows(JUDGE_VERSION) if SRBENCH_KEY not in loads(row.metrics)}


def score_store(
    results: Any = None,
    *,
    workers: int | None = None,
    srbench: bool = False,
    progress: bool = True,
    force: bool = False,
    cluster: dict[str, Any] | None = None,
) -> ScoreSummary:
    """Score every stored prediction that has no metrics of ``JUDGE_VERSION``; return the summary.

    ``results``: a results directory or store file (``None``: ``./srbf-results``), or a writable
    ``ResultsStore``. ``workers``: processes (default: one per core; 1 scores in this process).
    ``srbench=True`` adds SRBench's SymPy symbolic solution, also to predictions scored earlier
    without it (their rows are replaced). ``progress`` shows a bar on stderr when it is a terminal.
    Rows of this judge version computed with another judge stack (``srbf.judge.stack``) are kept
    and counted in the summary; ``force=True`` re-scores them with this one. ``cluster`` scores on
    a Dask cluster instead of local processes: ``{"scheduler": ADDRESS}`` or ``{"local": N}``
    (``srbf.judge.scoring_dask``); ``workers`` is then the cluster's.
    Raises ScoringError when there is no store to score, StoreError when it cannot be written.
    """
    started = time.perf_counter()
    n_workers = _default_workers() if workers is None else int(workers)
    if n_workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    given, path = _given(results)
    summary = ScoreSummary(path.resolve())
    bar = dispatch = store = None
    collector = contextlib.ExitStack()
    keep = collector.enter_context(collector_tuned())  # thresholds as in the scoring processes, until the pass ends
    try:
        if cluster is not None:  # a LocalCluster starts while the store is read and the plan is made
            from srbf.judge.scoring_dask import DaskDispatch

            dispatch = DaskDispatch(**cluster)
        elif FORK and given is None and n_workers > 1 and threading.active_count() == 1:
            dispatch = _Dispatch(n_workers, keep, fork=True)  # before the store is opened
        store = given or ResultsStore(path)
        scored = {int(row.prediction_id) for row in store.metric_stack_rows(JUDGE_VERSION)}
        replace = _without_srbench(store) if srbench and scored else set()
        replace = _other_stacks(store, summary, replace, force)
        done = scored - replace
        todo = [row for row in store.prediction_rows(PLAN_COLUMNS) if row.id not in done]
        summary.skipped = len(scored) - len(replace)
        if not todo:
            return summary
        wanted = min(n_workers, math.ceil(len(todo) / MIN_CHUNK))
        if isinstance(dispatch, _Dispatch) and wanted == 1:  # too few to share: scored here, as when not forked
            dispatch.close()
            dispatch = None
        if dispatch is None:
            dispatch = _Dispatch(wanted, keep)
        summary.workers = dispatch.workers
        failures: list[ScoreFailure] = []  # chunks go out as each catalog is planned: scoring starts at once
        dispatch.submit(chunks(planned(store, todo, failures), dispatch.workers, len(todo)), srbench)
        summary.failed.extend(failures)
        bar = _progress(len(todo) - len(failures), progress and sys.stderr.isatty())
        for batch in dispatch:
            rows = [(pid, metrics) for pid, metrics, _ in batch if metrics is not None]
            summary.scored += store.record_metrics_many(rows, JUDGE_VERSION, replace=replace, judge_stack=summary.stack)
            summary.as_failures += sum(1 for _, metrics in rows if not metrics.get("success"))
            summary.targets_differ += sum(1 for _, metrics in rows if metrics.get(TARGETS_DIFFER))
            summary.failed.extend(ScoreFailure(pid, reason) for pid, metrics, reason in batch if metrics is None)
            bar.update(len(batch))
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if bar is not None:
            bar.close()
        if dispatch is not None:
            dispatch.close()
        if store is not None and given is None:
            store.close()
        collector.close()
        summary.seconds = time.perf_counter() - started
    return summary
