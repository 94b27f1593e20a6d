"""``LocalExecutor``: the ``Executor`` (see ``executor``) that runs fits on this machine.

It runs N worker processes on this machine (default: one per core), each driven by
a thread of the parent that feeds it one fit at a time and keeps it alive across problems. A
worker that times out or dies is restarted by the next fit (``srbf.methods.Worker``); after
``max_restarts + 1`` abnormal ends in a row (5 by default: timeouts, crashes, failed restarts)
without a completed fit between them, that thread stops running the method, with a note saying why, and leaves its
remaining fits to the other threads. When no thread is left for a method, its remaining fits come
back as ``crashed`` with the reason, so every planned fit gets exactly one result.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence

from srbf.methods import isolation
from srbf.methods.worker import Worker, WorkerStartError
from srbf.runs.executor import (
    DEFAULT_MAX_RESTARTS,
    IDLE_SECONDS,
    Completed,
    Executor,
    HeldWorker,
    Prepare,
    default_workers,
    first_line,
    new_worker,
)
from srbf.runs.plan import PlannedFit, WorkerSpec
from srbf.runs.problems import Placeholder
from srbf.core import FitResult, FitTask

__all__ = ["DEFAULT_MAX_RESTARTS", "LocalExecutor"]

_JOIN_SECONDS = 10.0


class _Message:
    """A note (``text``) or a thread's unexpected error (``error``) on the results queue."""

    def __init__(self, text: str = "", error: BaseException | None = None):
        self.text = text
        self.error = error


class LocalExecutor(Executor):
    """``workers`` worker processes on this machine, one fit at a time each (see the module docstring).

    ``max_restarts``: restarts in a row one thread tolerates for a method; the next abnormal end
    stops it running that method. ``start_timeout`` bounds a worker's import and setup;
    ``tail_bytes`` is the output kept from a worker for failed fits. ``on_note(text)`` receives notes about stopped workers, in
    the thread that iterates ``run``. ``sandbox`` runs every worker under bubblewrap.
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        start_timeout: float | None = 600.0,
        tail_bytes: int = 8192,
        on_note: Callable[[str], None] | None = None,
        sandbox: isolation.Sandbox | None = None,
    ):
        if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        if int(max_restarts) < 0:
            raise ValueError(f"max_restarts must be >= 0, got {max_restarts!r}")
        self.workers = int(workers) if workers is not None else default_workers()
        self.max_restarts = int(max_restarts)
        self.start_timeout = start_timeout
        self.tail_bytes = int(tail_bytes)
        self.on_note = on_note or (lambda text: None)
        self.sandbox = sandbox
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._idle: dict[WorkerSpec, list[Worker]] = {}  # started, not held by a thread
        self._busy: dict[int, Worker] = {}  # thread index -> worker fitting right now
        self._pending: OrderedDict[WorkerSpec, deque[PlannedFit]] = OrderedDict()
        self._retired: dict[WorkerSpec, set[int]] = {}
        self._last_error: dict[WorkerSpec, str] = {}
        self._live: set[int] = set()
        self._threads: list[threading.Thread] = []
        self._results: queue.Queue = queue.Queue()

    # ------------------------------------------------------------------ workers

    def _new_worker(self, spec: WorkerSpec) -> Worker:
        return new_worker(spec, start_timeout=self.start_timeout, tail_bytes=self.tail_bytes, sandbox=self.sandbox)

    def start(self, specs: Sequence[WorkerSpec]) -> None:
        """Start the workers of ``specs``, in parallel, before any fit: a method that cannot start
        stops the run here. A spec listed k times gets k workers (the driver asks for one per slot
        for the method it runs first, and one for each other method, to check that it starts). The
        first ``workers + 1`` in plan order are kept for the run (the others are closed and start
        again when their turn comes); further workers start in their own threads when needed."""
        wanted = list(specs)
        if not wanted:
            return
        started: list[tuple[WorkerSpec, Worker]] = []
        errors: list[tuple[int, WorkerSpec, BaseException]] = []

        def launch(index: int, spec: WorkerSpec) -> None:
            if self._stop.is_set():
                return
            try:
                worker = self._new_worker(spec)
                worker.start()
            except BaseException as exc:  # noqa: BLE001 - reported below, in spec order
                errors.append((index, spec, exc))
                return
            with self._lock:
                started.append((spec, worker))

        try:
            parallel = min(len(wanted), max(self.workers, 4))
            with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="srbf-start") as pool:
                for index, spec in enumerate(wanted):
                    pool.submit(launch, index, spec)
        except BaseException:
            self._stop.set()
            for _, worker in started:
                worker.close()
            raise
        if errors:
            for _, worker in started:
                worker.close()
            index, spec, exc = min(errors, key=lambda e: e[0])
            if isinstance(exc, WorkerStartError):
                raise WorkerStartError(f"{spec.label}: {exc}") from None
            raise exc
        order: dict[WorkerSpec, int] = {}
        for i, spec in enumerate(wanted):
            order.setdefault(spec, i)
        for kept, (spec, worker) in enumerate(sorted(started, key=lambda item: order[item[0]])):
            if kept < self.workers + 1:  # those needed first, in plan order
                self._idle.setdefault(spec, []).append(worker)
            else:
                worker.close()

    def _take_idle(self, spec: WorkerSpec) -> Worker | None:
        with self._lock:
            workers = self._idle.get(spec)
            return workers.pop() if workers else None

    # ------------------------------------------------------------------ the queue of fits

    def _take(self, slot: int, prefer: WorkerSpec | None) -> PlannedFit | None:
        """The next fit for thread ``slot``: of the method it runs if any are left, else the first."""
        with self._lock:
            if self._stop.is_set():
                return None
            retired = {spec for spec, slots in self._retired.items() if slot in slots}
            if prefer is not None and prefer not in retired and self._pending.get(prefer):
                return self._pending[prefer].popleft()
            for spec, fits in self._pending.items():
                if fits and spec not in retired:
                    return fits.popleft()
            return None

    def _give_back(self, fit: PlannedFit) -> None:
        with self._lock:
            self._pending[fit.spec].appendleft(fit)

    def _orphans(self) -> list[Completed]:
        """Under the lock: the fits of specs that every live thread has stopped running."""
        orphans: list[Completed] = []
        if self._stop.is_set():
            return orphans  # stopping: unfinished fits stay unrecorded, a rerun does them
        for spec, fits in self._pending.items():
            if fits and self._live <= self._retired.get(spec, set()):
                reason = (
                    f"not run: every worker for method {spec.label} was stopped after "
                    f"{self.max_restarts + 1} abnormal ends in a row"
                )
                last = self._last_error.get(spec)
                if last:
                    reason += f" (last: {last})"
                while fits:
                    orphans.append(Completed(fits.popleft(), FitResult(status="crashed", error=reason), ""))
        return orphans

    # ------------------------------------------------------------------ one thread per worker slot

    def _slot(self, slot: int, prepare: Prepare) -> None:
        held: OrderedDict[WorkerSpec, HeldWorker] = OrderedDict()
        current: WorkerSpec | None = None
        try:
            while not self._stop.is_set():
                fit = self._take(slot, current)
                if fit is None:
                    break
                prepared = prepare(fit)
                if isinstance(prepared, Placeholder):
                    self._results.put(Completed(fit, prepared.result, prepared.data_hash, prepared.inputs_hash))
                    continue
                current = fit.spec
                entry = self._holding(held, current)
                self._fit_one(slot, fit, prepared, entry)
                if entry.abnormal > self.max_restarts and not self._stop.is_set():
                    self._retire(slot, held, current, entry)
                    current = None
        except BaseException as exc:  # a bug in srbf: stop everything, let the consumer raise it
            self._stop.set()
            self._results.put(_Message(error=exc))
        finally:
            for entry in held.values():
                entry.close()
            with self._lock:
                self._live.discard(slot)
                orphans = self._orphans()
            for item in orphans:
                self._results.put(item)

    def _holding(self, held: OrderedDict[WorkerSpec, HeldWorker], spec: WorkerSpec) -> HeldWorker:
        """This thread's worker for ``spec`` (from the started ones, or a new one); workers of
        methods with nothing left to run are closed, and at most one other is kept."""
        entry = held.get(spec)
        if entry is None:
            entry = held[spec] = HeldWorker(self._take_idle(spec))
        held.move_to_end(spec)
        others = [s for s in held if s != spec]
        with self._lock:
            finished = [s for s in others if not self._pending.get(s)]
            unused = [w for s, ws in self._idle.items() if s != spec and not self._pending.get(s) for w in ws]
            self._idle = {s: ws for s, ws in self._idle.items() if s == spec or self._pending.get(s)}
        for worker in unused:  # started for a method that has nothing left to run
            worker.close()
        for s in finished + others[: max(0, len(others) - 1)]:
            if s in held:
                held.pop(s).close()
        return entry

    def _fit_one(self, slot: int, fit: PlannedFit, task: FitTask, entry: HeldWorker) -> None:
        """Run one fit and queue its result; a fit whose worker cannot start goes back to the queue."""
        try:
            if entry.worker is None:
                entry.worker = self._new_worker(fit.spec)
            worker = entry.worker
            with self._lock:
                self._busy[slot] = worker
            result = worker.fit(task)
        except WorkerStartError as exc:
            self._abnormal(fit.spec, entry, f"the worker could not be (re)started: {first_line(str(exc))}")
            if not self._stop.is_set():
                self._give_back(fit)  # another thread (or this one, after a restart) runs it
            return
        finally:
            with self._lock:
                self._busy.pop(slot, None)
        if self._stop.is_set():
            return  # cancelled: the fit in flight was killed, its result is not kept
        if result.status in ("timeout", "crashed"):
            self._abnormal(fit.spec, entry, f"{result.status}: {first_line(result.error)}")
        else:
            entry.abnormal = 0
        self._results.put(Completed(fit, result, task.data_hash, task.inputs_hash))

    def _abnormal(self, spec: WorkerSpec, entry: HeldWorker, error: str) -> None:
        entry.abnormal += 1
        entry.last_error = error
        with self._lock:
            self._last_error[spec] = error

    def _retire(self, slot: int, held: OrderedDict[WorkerSpec, HeldWorker], spec: WorkerSpec, entry: HeldWorker) -> None:
        held.pop(spec, None)
        entry.close()
        with self._lock:
            self._retired.setdefault(spec, set()).add(slot)
            others = self._live - self._retired[spec]
            left = len(self._pending.get(spec, ()))
            orphans = self._orphans()
        where = (
            f"its remaining fits go to the other {len(others)} worker(s)"
            if others
            else f"no worker is left for it: its {left} remaining fit(s) are recorded as crashed"
        )
        self._results.put(
            _Message(
                f"worker {slot + 1} stopped running {spec.label} after {entry.abnormal} abnormal ends "
                f"in a row (last: {entry.last_error}); {where}"
            )
        )
        for item in orphans:
            self._results.put(item)

    # ------------------------------------------------------------------ the consumer side

    def run(self, fits: Sequence[PlannedFit], prepare: Prepare, *, idle: float = IDLE_SECONDS) -> Iterator[list[Completed]]:
        fits = list(fits)
        if not fits:
            return
        self._stop.clear()
        with self._lock:
            for fit in fits:
                self._pending.setdefault(fit.spec, deque()).append(fit)
        n = min(self.workers, len(fits))
        self._live = set(range(n))
        self._threads = [
            threading.Thread(target=self._slot, args=(i, prepare), name=f"srbf-worker-{i + 1}", daemon=True)
            for i in range(n)
        ]
        for thread in self._threads:
            thread.start()
        remaining = len(fits)
        try:
            while remaining:
                try:
                    items = [self._results.get(timeout=idle)]
                except queue.Empty:
                    if not any(t.is_alive() for t in self._threads) and self._results.empty():
                        lost = f"srbf bug: the worker threads ended with {remaining} fit(s) unaccounted for"
                        raise RuntimeError(lost)
                    yield []
                    continue
                while True:  # and whatever else has arrived meanwhile
                    try:
                        items.append(self._results.get_nowait())
                    except queue.Empty:
                        break
                batch = []
                for item in items:
                    if isinstance(item, _Message):
                        if item.error is not None:
                            raise item.error
                        self.on_note(item.text)
                    else:
                        batch.append(item)
                if batch:
                    remaining -= len(batch)
                    yield batch
        finally:
            if remaining:
                self.cancel()
            self._join()

    def cancel(self) -> None:
        self._stop.set()
        with self._lock:
            busy = list(self._busy.values())
        for worker in busy:
            _kill_worker(worker)

    def _join(self) -> None:
        deadline = time.monotonic() + _JOIN_SECONDS
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = []
        with self._lock:
            self._pending.clear()
            self._retired.clear()
        while True:  # drop what the threads queued after the consumer stopped
            try:
                self._results.get_nowait()
            except queue.Empty:
                break

    def close(self) -> None:
        self.cancel()
        self._join()
        with self._lock:
            idle = [w for workers in self._idle.values() for w in workers]
            self._idle.clear()
        for worker in idle:
            worker.close()


def _kill_worker(worker: Worker) -> None:
    """Stop a worker and its processes from another thread; its ``fit`` then returns ``crashed``."""
    if worker.alive:
        isolation.signal_stop(worker.pid)
