"""``LocalExecutor``: the ``Executor`` (see ``executor``) that runs fits on this machine.

It runs N slot processes on this machine (default: one per core; ``slot``), each fed by a thread
of the parent that sends it a batch of fit orders at a time and receives the finished results as
they come (a quick method's a few at a time, ``slot.HOLD_SECONDS``): the slot draws the points and runs the fits in the method worker it keeps alive across
problems, so the parent only plans, hands out orders and records results, and drawing and talking
to the method use as many cores as there are slots. A batch holds as many consecutive fits of one
method as its last fits suggest take a quarter of a second (one fit to begin with, and for slow
methods; never more than a share of what is left, so the slots end together): cheap fits cost no
round trip each, and a slow method is handed out fit by fit as before. A worker that times out or dies is restarted by the next
fit (``srbf.methods.Worker``); after ``max_restarts + 1`` abnormal ends in a row (5 by default:
timeouts, crashes, failed restarts) without a completed fit between them, that slot stops running
the method, with a note saying why, and leaves its remaining fits to the other slots. When no slot
is left for a method, its remaining fits come back as ``crashed`` with the reason, so every
planned fit gets exactly one result.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import OrderedDict, deque
from multiprocessing.connection import wait as connection_wait
from typing import Callable, Iterator, Sequence

from srbf.core import FitResult
from srbf.methods import isolation
from srbf.methods.worker import WorkerStartError
from srbf.runs.executor import DEFAULT_MAX_RESTARTS, IDLE_SECONDS, Completed, Executor, Order, default_workers
from srbf.runs.plan import PlannedFit
from srbf.runs.slot import SlotGone, SlotProcess, SlotSettings, SlotStartError
from srbf.runs.slot_messages import CloseWorker, StartWorker
from srbf.runs.worker_spec import WorkerSpec

__all__ = ["DEFAULT_MAX_RESTARTS", "LocalExecutor"]

_JOIN_SECONDS = 10.0
MAX_BATCH = 64  # fits sent to a slot in one message, at most
BATCH_SECONDS = 0.25  # what a batch should take, judged by the method's last one


class _Message:
    """A note (``text``), a method whose workers start now (``starting``) or a thread's error
    (``error``: a method that cannot start, or a bug) on the results queue."""

    def __init__(self, text: str = "", error: BaseException | None = None, starting: WorkerSpec | None = None):
        self.text = text
        self.error = error
        self.starting = starting


class LocalExecutor(Executor):
    """``workers`` slot processes on this machine, one fit at a time each (see the module docstring).

    ``max_restarts``: restarts in a row one slot tolerates for a method; the next abnormal end
    stops it running that method. ``start_timeout`` bounds a worker's import and setup;
    ``tail_bytes`` is the output kept from a worker for failed fits. ``on_note(text)`` receives notes about stopped workers, and
    ``on_starting(spec)`` each method whose workers start with its first fit (not in ``start``), in
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
        self.settings = SlotSettings(start_timeout, int(tail_bytes), self.max_restarts, sandbox, self.workers)
        self.on_note = on_note or (lambda text: None)
        self.on_starting: Callable[[WorkerSpec], None] = lambda spec: None
        self._started: set[WorkerSpec] = set()  # methods whose workers have started in this executor
        self._announced: set[WorkerSpec] = set()  # methods whose first start was announced (or done in ``start``)
        self._first: dict[int, WorkerSpec] = {}  # the method each slot begins with (``start``)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._slots: list[SlotProcess | None] = [None] * self.workers
        self._busy: set[int] = set()  # slots fitting right now
        self._pending: OrderedDict[WorkerSpec, deque[PlannedFit]] = OrderedDict()
        self._retired: dict[WorkerSpec, set[int]] = {}
        self._last_error: dict[WorkerSpec, str] = {}
        self._pace: dict[WorkerSpec, float] = {}  # seconds per fit of the method's last batch
        self._live: set[int] = set()
        self._threads: list[threading.Thread] = []
        self._results: queue.Queue = queue.Queue()

    # ------------------------------------------------------------------ slot processes

    def _slot_process(self, slot: int) -> SlotProcess:
        process = self._slots[slot]
        if process is None or not process.alive:
            process = self._slots[slot] = SlotProcess(self.settings)
        return process

    def prestart(self, specs: Sequence[WorkerSpec] = ()) -> None:
        """Spawn every slot process now and ask slot k to start the worker of the k-th spec, without
        waiting: imports and method start-up overlap the driver's planning; ``start`` then reads
        the replies. A slot never used is killed at ``close``."""
        for slot in range(self.workers):
            process = self._slot_process(slot)
            if slot < len(specs):
                process.start_early(specs[slot])

    def start(self, specs: Sequence[WorkerSpec], later: Sequence[WorkerSpec] = ()) -> None:
        """Start the slot processes and, in slot k, the worker of the k-th spec (one per slot at
        most), all at once; return when the first of them is ready, so a slot can fit while the
        others start. Slot k begins with the fits of its spec. A first reply that is a failure
        stops the run here, before any fit; a worker that fails after that fails again at its
        slot's first fit (``run``: the run stops). The workers of ``later`` start in a slot when
        it is first handed their fits; a slot keeps the workers of two methods."""
        wanted = list(specs)[: self.workers]
        if not wanted:
            return
        self._announced.update(wanted)
        self._first = dict(enumerate(wanted))
        try:
            waiting = {}
            for slot, spec in enumerate(wanted):
                process = self._slot_process(slot)
                if not process.starting(spec):  # not asked by ``prestart``
                    process.start_early(spec)
                waiting[process.connection] = (process, spec)
            ready = set(connection_wait(list(waiting)))
            process, spec = next(waiting[c] for c in waiting if c in ready)  # in spec order when several are
            try:
                process.request(StartWorker(spec))
            except WorkerStartError as exc:
                raise WorkerStartError(f"{spec.label}: {exc}") from None
            self._started.add(spec)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ the queue of fits

    def _take(self, slot: int, prefer: WorkerSpec | None) -> list[PlannedFit]:
        """The next fits for slot ``slot``, consecutive in the plan and of one method: of the
        method it runs if any are left, else the first method's. As many as the method's recent
        fits suggest take ``BATCH_SECONDS`` (one while none has finished; at most ``MAX_BATCH``, at
        most a share of what is left, so that the slots end together), then the fits of the same
        draw that follow (the rungs of a ladder, the repeats), so that one slot draws those points once."""
        with self._lock:
            if self._stop.is_set():
                return []
            retired = {spec for spec, slots in self._retired.items() if slot in slots}
            if prefer is not None and prefer not in retired and self._pending.get(prefer):
                spec, fits = prefer, self._pending[prefer]
            else:
                spec, fits = next(((s, f) for s, f in self._pending.items() if f and s not in retired), (None, None))
                if fits is None:
                    return []
            pace = self._pace.get(spec)
            size = 1 if not pace else int(min(MAX_BATCH, BATCH_SECONDS / pace, len(fits) / (2 * len(self._live or (0,)))))
            taken = [fits.popleft() for _ in range(max(1, size))]
            while fits and _same_draw(fits[0], taken[-1]):
                taken.append(fits.popleft())
            return taken

    def _give_back(self, fits: list[PlannedFit]) -> None:
        with self._lock:
            self._pending[fits[0].spec].extendleft(reversed(fits))

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

    # ------------------------------------------------------------------ one thread per slot

    def _serve(self, slot: int, order: Order) -> None:
        """Hand slot ``slot`` batches of orders and queue the results as they come back, beginning
        with the method whose worker ``start`` started there."""
        current: WorkerSpec | None = self._first.get(slot)
        try:
            while not self._stop.is_set():
                taken = self._take(slot, current)
                if not taken:
                    break
                current = taken[0].spec
                abnormal, error = self._fit_batch(slot, taken, order)
                if abnormal > self.max_restarts and not self._stop.is_set():
                    self._retire(slot, current, abnormal, error)
                    current = None
        except SlotGone:
            if not self._stop.is_set():  # not the cancel's doing: a bug, or the system killed it
                self._stop.set()
                self._results.put(_Message(error=RuntimeError(f"srbf bug: slot {slot + 1}: the slot process ended")))
        except BaseException as exc:  # a method that cannot start, or a bug in srbf: stop, let the consumer raise it
            self._stop.set()
            self._results.put(_Message(error=exc))
        finally:
            with self._lock:
                self._live.discard(slot)
                orphans = self._orphans()
            for item in orphans:
                self._results.put(item)

    def _fit_batch(self, slot: int, fits: list[PlannedFit], order: Order) -> tuple[int, str]:
        """Run ``fits`` (of one method) in the slot and queue each result as it arrives. Fits
        the slot did not run (its worker could not start, or the method was stopped there) go
        back to the queue, in plan order. Returns the method's abnormal ends in a row in this
        slot, and the last one. A method that has not started anywhere yet and cannot start
        raises WorkerStartError (naming it): the run stops, as it would have in ``start``."""
        spec = fits[0].spec
        abnormal, last_error, done = 0, "", 0
        started = time.monotonic()
        with self._lock:
            self._busy.add(slot)
            if spec not in self._announced:  # its workers start with this batch
                self._announced.add(spec)
                self._results.put(_Message(starting=spec))
        try:
            for outcome in self._slot_process(slot).fits([order(fit) for fit in fits]):
                if self._stop.is_set():
                    return 0, ""  # cancelled: the fits in flight were killed, their results are not kept
                abnormal, last_error = outcome.abnormal, outcome.last_error
                if last_error:
                    with self._lock:
                        self._last_error[spec] = last_error
                self._results.put(Completed(fits[done], outcome.result, outcome.data_hash, outcome.inputs_hash))
                done += 1
                if done == 1:
                    with self._lock:
                        self._started.add(spec)
        except SlotStartError as exc:
            abnormal, last_error = exc.ends.count, exc.ends.last_error
            with self._lock:
                self._last_error[spec] = last_error
                never = spec not in self._started
            if never and not self._stop.is_set():
                raise WorkerStartError(f"{spec.label}: {exc}") from None
        finally:
            with self._lock:
                self._busy.discard(slot)
                if done:
                    self._pace[spec] = (time.monotonic() - started) / done
        if done < len(fits) and not self._stop.is_set():
            self._give_back(fits[done:])  # another slot (or this one, after a restart) runs them
        return abnormal, last_error

    def _retire(self, slot: int, spec: WorkerSpec, abnormal: int, last_error: str) -> None:
        self._slot_process(slot).request(CloseWorker(spec))
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
                f"worker {slot + 1} stopped running {spec.label} after {abnormal} abnormal ends "
                f"in a row (last: {last_error}); {where}"
            )
        )
        for item in orphans:
            self._results.put(item)

    # ------------------------------------------------------------------ the consumer side

    def run(self, fits: Sequence[PlannedFit], order: Order, *, idle: float = IDLE_SECONDS) -> Iterator[list[Completed]]:
        fits = list(fits)
        if not fits:
            return
        self._stop.clear()
        with self._lock:
            for fit in fits:
                self._pending.setdefault(fit.spec, deque()).append(fit)
        n = min(self.workers, len(fits))
        for slot in range(n):  # made in this thread, which outlives them (``SlotProcess``)
            self._slot_process(slot)
        self._live = set(range(n))
        self._threads = [
            threading.Thread(target=self._serve, args=(i, order), name=f"srbf-slot-{i + 1}", daemon=True)
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
                        if item.starting is not None:
                            self.on_starting(item.starting)
                        else:
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
        """Kill the fits in flight: their slot processes end, with the workers they hold (a later
        run starts new ones)."""
        self._stop.set()
        with self._lock:
            busy = [self._slots[slot] for slot in self._busy]
        for process in busy:
            if process is not None:
                process.cancel()

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
        processes = [process for process in self._slots if process is not None]
        for process in processes:  # every slot ends its workers at the same time
            process.stop()
        for process in processes:
            process.close()
        self._slots = [None] * self.workers


def _same_draw(a: PlannedFit, b: PlannedFit) -> bool:
    """Whether two fits of one method have the same points (they differ in budget or repeat only)."""
    ka, kb = a.key, b.key
    return a.spec == b.spec and (ka.catalog, ka.problem_id, ka.draw, ka.condition) == (kb.catalog, kb.problem_id, kb.draw, kb.condition)
