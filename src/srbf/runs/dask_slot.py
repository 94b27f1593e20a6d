"""What a Dask worker runs for srbf: batches of fit orders, through slots it keeps alive.

``DaskExecutor`` (``dask_executor``) submits ``run_batch(spec, orders, settings)``, the orders
pickled (the scheduler passes bytes on as they are); the Dask worker thread that takes it runs
each ``FitOrder`` through its ``Slot`` (``slot``: the points drawn here,
on the node, from the order's catalog entry; the fit in a method worker made on this node, so
``env:NAME`` interpreters are resolved here, and kept for the next batch), exactly as a local slot
process does. The same restart rule holds: after ``max_restarts + 1`` abnormal ends in a row, this
thread stops running the method and its fits come back ``crashed`` with the reason. Only results
travel back; the driver alone writes the store.

``kill_busy`` and ``close_all`` are run on every Dask worker by the executor (``Client.run``) to
stop the fits in flight and to end the method workers when a run is over.
"""

from __future__ import annotations

import pickle
import socket
import threading
import time

from srbf.core import FitResult
from srbf.methods.worker import WorkerStartError
from srbf.runs.executor import first_line
from srbf.runs.slot import Slot, SlotOutcome, SlotSettings
from srbf.runs.worker_spec import WorkerSpec

__all__ = ["SlotSettings", "close_all", "kill_busy", "run_batch", "start_check"]

_local = threading.local()
_slots: list[Slot] = []
_slots_lock = threading.Lock()


def _slot(settings: SlotSettings) -> Slot:
    slot = getattr(_local, "slot", None)
    if slot is None:
        slot = _local.slot = Slot(settings)
        with _slots_lock:
            _slots.append(slot)
    slot.settings = settings
    return slot


def start_check(spec: WorkerSpec, settings: SlotSettings) -> str:
    """Start a method worker of ``spec`` here (kept for the fits to come) and return this node's
    name; raises WorkerStartError (pickled back to the client) when it cannot start."""
    _slot(settings).start(spec)
    return socket.gethostname()


def run_batch(spec: WorkerSpec, orders: bytes, settings: SlotSettings) -> tuple[list[SlotOutcome], float]:
    """Run the pickled list of ``FitOrder`` one after another in this thread's slot: one outcome
    each, and the seconds the batch took (the executor sizes the method's next batches by it)."""
    started = time.monotonic()
    slot = _slot(settings)
    outcomes: list[SlotOutcome] = []
    for order in pickle.loads(orders):
        ends = slot.abnormal(spec)
        if ends.count > settings.max_restarts:
            reason = (
                f"not run: the worker for method {spec.label} on {socket.gethostname()} was stopped after "
                f"{ends.count} abnormal ends in a row (last: {ends.last_error})"
            )
            outcomes.append(SlotOutcome(FitResult(status="crashed", error=reason)))
            continue
        try:
            outcomes.append(slot.run(order))
        except WorkerStartError as exc:
            error = f"the worker could not be (re)started: {first_line(str(exc))}"
            outcomes.append(SlotOutcome(FitResult(status="crashed", error=error)))
    if slot.abnormal(spec).count > settings.max_restarts:
        slot.retire(spec)
    return outcomes, time.monotonic() - started


def kill_busy() -> int:
    """Kill the method workers fitting right now on this Dask worker; return how many."""
    with _slots_lock:
        slots = list(_slots)
    return sum(slot.kill_busy() for slot in slots)


def close_all() -> int:
    """End every method worker kept on this Dask worker; return how many there were."""
    with _slots_lock:
        slots = list(_slots)
    return sum(slot.close() for slot in slots)
