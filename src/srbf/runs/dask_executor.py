"""``DaskExecutor``: the ``Executor`` (see ``executor``) that runs fits on a Dask cluster.

``srbf run --executor dask --scheduler ADDRESS`` uses a running scheduler (started by hand, by
dask-jobqueue under SLURM or PBS, on Kubernetes: docs/cluster.md); ``--local N`` starts a
``LocalCluster`` of N single-threaded worker processes on this machine. Consecutive fits of one
method go out in batches of fit orders (keys and catalog entries, no points), each a Dask task
that draws the points and runs the fits through the slot a Dask worker thread keeps
(``dask_slot``, ``slot``). Results come back as the tasks finish and are handed to the driver,
which alone writes the store.

A task costs a few milliseconds of CPU spread over the driver, the scheduler and the worker, so a
batch holds as many fits as the method's last batch suggests take half a second (one fit to begin
with, and for slow methods; never more than a share of what is left, so the workers end
together), then the fits of the same draw that follow, which the slot draws once. A batch's
orders travel pickled, as one bytes object: the scheduler unpickles every task it is given and
would otherwise rebuild each catalog entry on the way through.

A few batches per Dask worker thread are in flight at a time. A Dask worker that dies loses only the batches it was
running: the scheduler gives them to another worker, up to its ``allowed-failures`` limit (set to
``max_retries`` for a LocalCluster; a scheduler started by hand has its own, 3 by default); a
batch that still fails comes back with every fit ``crashed``, naming the reason.
"""

from __future__ import annotations

import pickle
import queue
import threading
from collections import deque
from typing import Callable, Iterator, Sequence

from srbf.core import FitResult
from srbf.methods import isolation
from srbf.methods.worker import WorkerStartError
from srbf.runs.dask_cluster import ClusterError, DaskCluster
from srbf.runs.dask_slot import SlotSettings, close_all, kill_busy, run_batch, start_check
from srbf.runs.executor import DEFAULT_MAX_RESTARTS, IDLE_SECONDS, Completed, Executor, Order, first_line
from srbf.runs.fork_server import SLOT_MODULES
from srbf.runs.local_executor import _same_draw
from srbf.runs.plan import PlannedFit
from srbf.runs.slot import SlotOutcome
from srbf.runs.worker_spec import WorkerSpec

__all__ = ["ClusterError", "DEFAULT_MAX_RETRIES", "DaskExecutor"]

DEFAULT_MAX_RETRIES = 3  # a batch whose Dask worker dies runs again on another, this many times at most
MAX_BATCH = 512  # fits per Dask task, at most
BATCH_SECONDS = 0.5  # what a Dask task should take, judged by the method's last batch
BATCHES_PER_THREAD = 3  # in flight per Dask worker thread: one running, the next ones queued


class DaskExecutor(Executor):
    """Fits on a Dask cluster: the one at ``scheduler`` (an address such as tcp://host:8786), or
    a LocalCluster of ``local`` worker processes started here and stopped by ``close()``.

    ``batch_size`` fits per Dask task (default: sized by the method's pace, see the module
    docstring). ``max_restarts``, ``start_timeout``, ``tail_bytes`` and ``sandbox``
    are as for ``LocalExecutor``, and apply on the Dask workers.
    """

    def __init__(
        self,
        *,
        scheduler: str | None = None,
        local: int | None = None,
        batch_size: int | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        start_timeout: float | None = 600.0,
        tail_bytes: int = 8192,
        on_note: Callable[[str], None] | None = None,
        sandbox: isolation.Sandbox | None = None,
    ):
        if batch_size is not None and int(batch_size) < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.cluster = DaskCluster(  # a LocalCluster starts meanwhile, its workers importing the slot code
            scheduler=scheduler, local=local, max_retries=max_retries, preload=SLOT_MODULES
        )
        self.where = self.cluster.where
        self.batch_size = batch_size
        self.settings = SlotSettings(start_timeout, int(tail_bytes), int(max_restarts), sandbox)
        self.on_note = on_note or (lambda text: None)
        self.on_starting = lambda spec: None  # every worker starts in ``start``
        self._futures: dict = {}
        self._pace: dict[WorkerSpec, float] = {}  # seconds per fit of the method's last batch
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.workers = self.cluster.workers

    @property
    def client(self):
        """The cluster's client, once it is up (None after ``close``)."""
        return self.cluster.client

    # ------------------------------------------------------------------ the Executor interface

    def start(self, specs: Sequence[WorkerSpec], later: Sequence[WorkerSpec] = ()) -> None:
        """Start a method worker of each distinct spec on the cluster, ``later`` ones too (where a
        batch lands is the cluster's choice, so none is started lazily): one that cannot start
        raises WorkerStartError here, before any fit."""
        wanted = list(dict.fromkeys([*specs, *later]))
        futures = [self.client.submit(start_check, spec, self.settings, pure=False) for spec in wanted]
        for spec, future in zip(wanted, futures):
            try:
                future.result()
            except WorkerStartError as exc:
                self.client.cancel(futures)
                raise WorkerStartError(f"{spec.label}: {exc}") from None

    def _take(self, pending: deque[PlannedFit], window: int) -> list[PlannedFit]:
        """The next batch: consecutive fits of one method from the head of ``pending`` (see the
        module docstring for how many)."""
        spec = pending[0].spec
        pace = self._pace.get(spec)
        if self.batch_size:
            size = self.batch_size
        else:
            size = 1 if not pace else int(min(MAX_BATCH, BATCH_SECONDS / pace, len(pending) / window))
        taken = [pending.popleft()]
        while pending and pending[0].spec == spec and (len(taken) < size or _same_draw(pending[0], taken[-1])):
            taken.append(pending.popleft())
        return taken

    def run(self, fits: Sequence[PlannedFit], order: Order, *, idle: float = IDLE_SECONDS) -> Iterator[list[Completed]]:
        pending = deque(fits)
        if not pending:
            return
        self._stop.clear()
        arrived: queue.Queue = queue.Queue()
        remaining = len(pending)
        window = BATCHES_PER_THREAD * self.workers
        try:
            while remaining:
                while pending and len(self._futures) < window and not self._stop.is_set():
                    self._submit(self._take(pending, window), order, arrived)
                try:
                    done = [arrived.get(timeout=idle)]
                except queue.Empty:
                    done = []
                while True:
                    try:
                        done.append(arrived.get_nowait())
                    except queue.Empty:
                        break
                ready = self._collect(done)
                remaining -= len(ready)
                yield ready
        finally:
            if remaining:
                self.cancel()

    def _submit(self, batch: list[PlannedFit], order: Order, arrived: queue.Queue) -> None:
        """Send a batch's orders off, pickled (the Dask worker draws the points)."""
        orders = pickle.dumps([order(fit) for fit in batch], protocol=pickle.HIGHEST_PROTOCOL)
        future = self.client.submit(run_batch, batch[0].spec, orders, self.settings, pure=False)
        with self._lock:
            self._futures[future] = batch
        future.add_done_callback(arrived.put)

    def _collect(self, done: list) -> list[Completed]:
        """The fits of the finished batches ``done``, fetched in one request; every fit
        ``crashed`` of a batch whose Dask workers kept dying; nothing when the run was cancelled."""
        from distributed.scheduler import KilledWorker

        with self._lock:
            sent = [(future, self._futures.pop(future, None)) for future in done]
        if self._stop.is_set():
            return []
        sent = [(future, batch) for future, batch in sent if batch is not None and future.status != "cancelled"]
        fetch = [future for future, _ in sent if future.status != "error"]
        values = dict(zip(fetch, self.client.gather(fetch))) if fetch else {}
        completed: list[Completed] = []
        for future, batch in sent:
            if future in values:
                outcomes, seconds = values[future]
                self._pace[batch[0].spec] = seconds / len(batch)
            else:
                error = future.exception()
                if not isinstance(error, KilledWorker):
                    raise error  # a bug in srbf's slot code: stop the run, as the local executor does
                reason = f"crashed: the Dask workers running it died ({first_line(str(error))})"
                outcomes = [SlotOutcome(FitResult(status="crashed", error=reason)) for _ in batch]
            completed += [Completed(fit, o.result, o.data_hash, o.inputs_hash) for fit, o in zip(batch, outcomes)]
        return completed

    def cancel(self) -> None:
        self._stop.set()
        with self._lock:
            futures = list(self._futures)
            self._futures.clear()
        if futures:
            self.client.cancel(futures)
            try:
                self.client.run(kill_busy)
            except (OSError, TimeoutError):
                pass  # a worker gone meanwhile has no fit left to kill

    def close(self) -> None:
        try:
            client = self.client
        except Exception:  # noqa: BLE001 - a LocalCluster that did not start has nothing to end
            client = None
        if client is not None:
            self.cancel()
            try:
                client.run(close_all)
            except (OSError, TimeoutError):
                pass
        self.cluster.close()

