"""What a Dask worker runs for srbf: batches of fits, through method workers it keeps alive.

``DaskExecutor`` (``dask_executor``) submits ``run_batch(spec, tasks, settings)``; the Dask worker
process that takes it runs each ``FitTask`` in a method worker (``srbf.methods.Worker``) of
``spec``, made on this node (so ``env:NAME`` interpreters are resolved here) and kept for the next
batch, one per Dask worker thread and method, exactly as a ``LocalExecutor`` slot keeps it. The
same restart rule holds: after ``max_restarts + 1`` abnormal ends in a row, this thread stops
running the method and its fits come back ``crashed`` with the reason. Only results travel back;
the driver alone writes the store.

``kill_busy`` and ``close_all`` are run on every Dask worker by the executor (``Client.run``) to
stop the fits in flight and to end the method workers when a run is over.
"""

from __future__ import annotations

import socket
import threading
from collections import OrderedDict
from dataclasses import dataclass

from srbf.core import FitResult, FitTask
from srbf.methods import isolation
from srbf.methods.worker import WorkerStartError
from srbf.runs.executor import HeldWorker, first_line, new_worker
from srbf.runs.plan import WorkerSpec

__all__ = ["SlotSettings", "close_all", "kill_busy", "run_batch", "start_check"]

_KEPT = 2  # method workers a thread keeps: the current method's and one other


@dataclass(frozen=True)
class SlotSettings:
    """How method workers are made and retired on a Dask worker (sent with every batch)."""

    start_timeout: float | None = 600.0
    tail_bytes: int = 8192
    max_restarts: int = 4
    sandbox: isolation.Sandbox | None = None


class _Slot:
    """One Dask worker thread's method workers, most recently used last."""

    def __init__(self) -> None:
        self.held: OrderedDict[WorkerSpec, HeldWorker] = OrderedDict()
        self.busy: HeldWorker | None = None


_local = threading.local()
_slots: list[_Slot] = []
_slots_lock = threading.Lock()


def _slot() -> _Slot:
    slot = getattr(_local, "slot", None)
    if slot is None:
        slot = _local.slot = _Slot()
        with _slots_lock:
            _slots.append(slot)
    return slot


def _holding(slot: _Slot, spec: WorkerSpec) -> HeldWorker:
    entry = slot.held.get(spec)
    if entry is None:
        entry = slot.held[spec] = HeldWorker(None)
    slot.held.move_to_end(spec)
    while len(slot.held) > _KEPT:
        slot.held.popitem(last=False)[1].close()
    return entry


def _make(spec: WorkerSpec, settings: SlotSettings):
    return new_worker(spec, start_timeout=settings.start_timeout, tail_bytes=settings.tail_bytes, sandbox=settings.sandbox)


def start_check(spec: WorkerSpec, settings: SlotSettings) -> str:
    """Start a method worker of ``spec`` here (kept for the fits to come) and return this node's
    name; raises WorkerStartError (pickled back to the client) when it cannot start."""
    entry = _holding(_slot(), spec)
    if entry.worker is None:
        entry.worker = _make(spec, settings)
    entry.worker.start()
    return socket.gethostname()


def run_batch(spec: WorkerSpec, tasks: list[FitTask], settings: SlotSettings) -> list[FitResult]:
    """Run ``tasks`` one after another in this thread's method worker for ``spec``; one result each."""
    slot = _slot()
    entry = _holding(slot, spec)
    results: list[FitResult] = []
    for task in tasks:
        if entry.abnormal > settings.max_restarts:
            reason = (
                f"not run: the worker for method {spec.label} on {socket.gethostname()} was stopped after "
                f"{entry.abnormal} abnormal ends in a row (last: {entry.last_error})"
            )
            results.append(FitResult(status="crashed", error=reason))
            continue
        slot.busy = entry
        try:
            if entry.worker is None:
                entry.worker = _make(spec, settings)
            result = entry.worker.fit(task)
        except WorkerStartError as exc:
            result = FitResult(status="crashed", error=f"the worker could not be (re)started: {first_line(str(exc))}")
        finally:
            slot.busy = None
        if result.status in ("timeout", "crashed"):
            entry.abnormal += 1
            entry.last_error = f"{result.status}: {first_line(result.error)}"
        else:
            entry.abnormal = 0
        results.append(result)
    if entry.abnormal > settings.max_restarts:
        entry.close()
    return results


def kill_busy() -> int:
    """Kill the method workers fitting right now on this Dask worker; return how many."""
    with _slots_lock:
        busy = [slot.busy for slot in _slots if slot.busy is not None]
    killed = 0
    for entry in busy:
        worker = entry.worker
        if worker is not None and worker.alive:
            isolation.signal_stop(worker.pid)
            killed += 1
    return killed


def close_all() -> int:
    """End every method worker kept on this Dask worker; return how many there were."""
    with _slots_lock:
        held = [entry for slot in _slots for entry in slot.held.values()]
        for slot in _slots:
            slot.held.clear()
    for entry in held:
        entry.close()
    return len(held)
