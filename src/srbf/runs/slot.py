"""Slots: the srbf side of a method worker, where a fit's points are drawn and its result comes from.

A ``Slot`` takes ``FitOrder`` records (a task key, the catalog entry and the sampling settings:
no points), draws each problem's points (``ProblemSource``, the last draws cached so the rungs of
a ladder share one), and runs the fit in a method worker (``srbf.methods.Worker``) it keeps per
method: the current one and one other. Only the support points cross into the method's process,
never the truth (except for an oracle). It counts each method's abnormal ends in a row (timeouts,
crashes, failed restarts): past ``max_restarts`` its owner stops giving it that method.

A slot runs in its own process on this machine (``SlotProcess``, for the ``LocalExecutor``: the
parent sends batches of orders and receives the finished results over a pipe as they come, those
of quick fits grouped (``HOLD_SECONDS``), so drawing points and talking to the method run on as
many cores as there are slots, not on the parent's one interpreter, and a cheap fit costs no
round trip of its own), or in a Dask worker's thread (``dask_slot``). Slot processes are spawned: they start clean (no copy of
the parent's threads or store connection) and import only what drawing and the worker need.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterator

from srbf.core import FitResult, collector_tuned
from srbf.methods import isolation
from srbf.methods.worker import WorkerStartError
from srbf.runs.executor import HeldWorker, first_line, new_worker
from srbf.runs import slot_messages as msg
from srbf.runs.problems import FitOrder, Placeholder, ProblemSource
from srbf.runs.slot_messages import AbnormalEnds, SlotOutcome
from srbf.runs.worker_spec import WorkerSpec

__all__ = ["SlotOutcome", "SlotProcess", "SlotSettings", "SlotStartError", "Slot"]

KEPT_WORKERS = 2  # method workers a slot keeps: the current method's and one other
DRAWS_KEPT = 32  # draws a slot keeps, so the rungs of a ladder and the repeats share one
HOLD_SECONDS = 0.02  # how long a slot may hold finished outcomes to send them together


@dataclass(frozen=True)
class SlotSettings:
    """How a slot makes and retires method workers (the executor's settings)."""

    start_timeout: float | None = 600.0
    tail_bytes: int = 8192
    max_restarts: int = 4
    sandbox: isolation.Sandbox | None = None
    workers_here: int | None = None  # workers sharing this machine's memory (None: one per core)


class Slot:
    """Draws points and runs fits in the method workers it keeps (see the module docstring)."""

    def __init__(self, settings: SlotSettings):
        self.settings = settings
        self.source = ProblemSource(cache_size=DRAWS_KEPT)
        self.held: OrderedDict[WorkerSpec, HeldWorker] = OrderedDict()
        self.busy: HeldWorker | None = None

    def _holding(self, spec: WorkerSpec) -> HeldWorker:
        entry = self.held.get(spec)
        if entry is None:
            entry = self.held[spec] = HeldWorker(None)
        self.held.move_to_end(spec)
        while len(self.held) > KEPT_WORKERS:
            self.held.popitem(last=False)[1].close()
        return entry

    def _worker(self, entry: HeldWorker, spec: WorkerSpec):
        if entry.worker is None:
            s = self.settings
            entry.worker = new_worker(spec, start_timeout=s.start_timeout, tail_bytes=s.tail_bytes, sandbox=s.sandbox,
                                      workers_here=s.workers_here)  # fmt: skip
        return entry.worker

    def start(self, spec: WorkerSpec) -> None:
        """Start a worker for ``spec`` (kept for the fits to come); WorkerStartError if it cannot."""
        self._worker(self._holding(spec), spec).start()

    def run(self, order: FitOrder) -> SlotOutcome:
        """Draw the order's points and run its fit; a placeholder draw runs nothing. A worker that
        cannot be (re)started counts as an abnormal end and raises WorkerStartError."""
        prepared = self.source.prepare(order)
        if isinstance(prepared, Placeholder):
            return SlotOutcome(prepared.result, prepared.data_hash, prepared.inputs_hash)
        entry = self._holding(order.spec)
        self.busy = entry
        try:
            result = self._worker(entry, order.spec).fit(prepared)
        except WorkerStartError as exc:
            self._abnormal(entry, f"the worker could not be (re)started: {first_line(str(exc))}")
            raise
        finally:
            self.busy = None
        if result.status in ("timeout", "crashed", "memory_limit"):
            self._abnormal(entry, f"{result.status}: {first_line(result.error)}")
        else:
            entry.abnormal = 0
        return SlotOutcome(result, prepared.data_hash, prepared.inputs_hash, entry.abnormal, entry.last_error)

    def abnormal(self, spec: WorkerSpec) -> AbnormalEnds:
        """The method's abnormal ends in a row here, and the latest one's reason."""
        entry = self.held.get(spec)
        return AbnormalEnds(entry.abnormal, entry.last_error) if entry is not None else AbnormalEnds()

    @staticmethod
    def _abnormal(entry: HeldWorker, error: str) -> None:
        entry.abnormal += 1
        entry.last_error = error

    def kill_busy(self) -> bool:
        """Kill the method worker fitting right now (from another thread); its fit ends ``crashed``."""
        entry = self.busy
        worker = entry.worker if entry is not None else None
        if worker is not None and worker.alive:
            isolation.signal_stop(worker.pid)
            return True
        return False

    def retire(self, spec: WorkerSpec) -> None:
        """End the worker of ``spec`` but keep its count of abnormal ends (its fits are not run here)."""
        entry = self.held.get(spec)
        if entry is not None:
            entry.close()
            entry.worker = None

    def close(self, spec: WorkerSpec | None = None) -> int:
        """End the worker of ``spec`` (default: every worker); return how many were ended."""
        specs = [spec] if spec is not None else list(self.held)
        ended = 0
        for s in specs:
            entry = self.held.pop(s, None)
            if entry is not None:
                entry.close()
                ended += 1
        return ended


# ---------------------------------------------------------------- a slot in a process of its own


class SlotStartError(WorkerStartError):
    """A slot process could not (re)start a method worker: the slot's message, and the method's
    abnormal ends in a row in that slot (``StartFailed``)."""

    def __init__(self, failure: msg.StartFailed):
        super().__init__(failure.error)
        self.ends = failure.ends


class _Stopped(BaseException):
    """SIGTERM in a slot process: the parent cancels; the fit in flight is killed on the way out."""


def _stop(signum, frame):  # noqa: ARG001 - signal handler signature
    raise _Stopped


def slot_main(conn, settings: SlotSettings, parent: int) -> None:
    """A slot process's loop: it answers the parent's messages (``slot_messages``) until ``Stop``
    or EOF. SIGTERM ends it too, killing the fit in flight; it is sent when the parent dies, even
    by SIGKILL."""
    from srbf.methods.worker_guard import PR_SET_PDEATHSIG, prctl

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it cancels the run
    signal.signal(signal.SIGTERM, _stop)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the line above
        return
    isolation.adopt_orphans()  # what a method's killed guard leaves comes here, to be ended
    threading.Thread(target=_import_for_fits, name="srbf-slot-imports", daemon=True).start()
    with collector_tuned(for_life=True) as keep:  # a slot lives as long as its run: what it imported is frozen
        slot = Slot(settings)
        try:
            _serve(slot, conn, keep)
        except (_Stopped, BrokenPipeError, ConnectionResetError):
            pass
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # closing the workers is not interrupted
            slot.close()
    _exit_now()


def _import_for_fits() -> None:
    """Import what the first fit needs here (NumPy, the sampler, the expression compiler, the check
    of a method's own predictions) while the first method worker starts, in another process, so
    that the first fit does not wait for them after the worker is ready. A failure is left to the
    fit that needs the module, which reports it."""
    try:
        import srbf.catalogs.sampling  # noqa: F401 - imported for later
        import srbf.methods.own_predictions  # noqa: F401
    except Exception:  # the fit that imports the module reports the error
        pass


def _serve(slot: Slot, conn, keep: Callable[[], None]) -> None:
    """Answer the parent's messages until ``Stop`` or EOF (``slot_main``); ``keep`` freezes what
    a batch of fits left alive (``collector_tuned``)."""
    while True:
        try:
            request = msg.decode(conn.recv_bytes(), msg.TO_SLOT)
        except EOFError:
            return
        if isinstance(request, msg.Stop):
            return
        if isinstance(request, msg.RunFits):
            _run_orders(slot, request.orders, conn)
            keep()  # the batch's samplers and compiled truths, kept: not traversed again
            continue
        try:
            if isinstance(request, msg.StartWorker):
                reply = msg.Done(slot.start(request.spec))
            else:
                reply = msg.Done(slot.close(request.spec))
        except WorkerStartError as exc:
            reply = msg.StartFailed(str(exc), slot.abnormal(request.spec))
        conn.send_bytes(msg.encode(reply))


def _exit_now() -> None:
    """End the process without the interpreter's teardown: its workers are closed and its
    messages sent, and freeing every formula and sampler it cached costs about as much CPU as
    a thousand fits, after the run's last fit, while the parent waits for it."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(0)


def _run_orders(slot: Slot, orders: list[FitOrder], conn) -> None:
    """Run a batch of orders (all of one method), sending the outcomes as they are known, then a
    ``BatchEnd``. The batch stops early when a worker cannot be (re)started, or after a fit that
    makes the method's abnormal ends in a row exceed ``max_restarts``: the owner retires the
    method from this slot and gives the orders not run to other slots.

    Outcomes travel in ``Outcomes`` messages: each is sent once ``HOLD_SECONDS`` have
    passed since the first one it holds, and at the end of the batch, so that quick fits do not
    wake the parent once each. A slow method's batches hold one fit (``LocalExecutor._take``), so
    its outcomes are sent at once; only when a fit of a quick method turns out slow do the
    outcomes held before it (at most ``HOLD_SECONDS``' worth) wait for it."""
    run, failed = 0, None
    held: list[SlotOutcome] = []
    since = 0.0
    for order in orders:
        try:
            outcome = slot.run(order)
        except WorkerStartError as exc:
            failed = msg.StartFailed(str(exc), slot.abnormal(order.spec))
            break
        now = time.monotonic()
        if not held:
            since = now
        held.append(outcome)
        run += 1
        if now - since >= HOLD_SECONDS:
            conn.send_bytes(msg.encode(msg.Outcomes(held)))
            held = []
        if outcome.abnormal > slot.settings.max_restarts:
            break
    if held:
        conn.send_bytes(msg.encode(msg.Outcomes(held)))
    conn.send_bytes(msg.encode(msg.BatchEnd(run, slot.abnormal(orders[0].spec), failed)))


class SlotGone(RuntimeError):
    """A slot process ended while the parent waited for it (killed by the cancel, or a bug)."""


class SlotProcess:
    """The parent's handle on a slot process; one request at a time, from one thread. Made in a
    thread that outlives it (the parent-death signal follows the thread that started it)."""

    def __init__(self, settings: SlotSettings):
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self.process = context.Process(target=slot_main, args=(child, settings, os.getpid()), name="srbf-slot",
                                       daemon=True)  # fmt: skip
        self.process.start()
        child.close()
        self._used = False  # nothing sent yet: no method worker to end, so close() need not ask
        self._stopped = False
        self._early: list[WorkerSpec] = []  # start requests sent ahead (``start_early``), replies unread
        self._started: dict[WorkerSpec, msg.Done | msg.StartFailed] = {}  # their replies, until the spec's first start

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def _send(self, message) -> None:
        self._used = True
        try:
            self._conn.send_bytes(msg.encode(message))
        except OSError as exc:
            raise SlotGone(f"the slot process ended (exit code {self.process.exitcode})") from exc

    def _receive(self):
        try:
            return msg.decode(self._conn.recv_bytes(), msg.TO_PARENT)
        except (EOFError, OSError) as exc:
            raise SlotGone(f"the slot process ended (exit code {self.process.exitcode})") from exc

    def start_early(self, spec: WorkerSpec) -> None:
        """Ask the slot to start a worker for ``spec`` without waiting for the reply, so that it
        starts while the parent plans; the first ``request(StartWorker(spec))`` returns that reply."""
        self._send(msg.StartWorker(spec))
        self._early.append(spec)

    def starting(self, spec: WorkerSpec) -> bool:
        """Whether a start of ``spec`` was asked ahead (``start_early``) and its reply not yet taken."""
        return spec in self._early or spec in self._started

    @property
    def connection(self):
        """The pipe to the process, readable when a reply (or its end) has come (``connection.wait``)."""
        return self._conn

    def _settle(self) -> None:
        """Read the replies of the early starts (before any other request's reply)."""
        while self._early:
            spec = self._early.pop(0)
            self._started[spec] = self._receive()

    def request(self, message: msg.StartWorker | msg.CloseWorker) -> int | None:
        """Send a request and wait for its reply: the value, or SlotStartError (with the
        method's abnormal ends in a row). SlotGone if the process ends first."""
        self._settle()
        if isinstance(message, msg.StartWorker) and message.spec in self._started:  # started early: its reply
            reply = self._started.pop(message.spec)
        else:
            self._send(message)
            reply = self._receive()
        if isinstance(reply, msg.StartFailed):
            raise SlotStartError(reply)
        if not isinstance(reply, msg.Done):
            got, sent = type(reply).__name__, type(message).__name__
            raise msg.BadSlotMessage(f"slot message: got a {got} in reply to a {sent}")
        return reply.value

    def fits(self, orders: list[FitOrder]) -> Iterator[SlotOutcome]:
        """Send a batch of orders of one method in one message and yield their outcomes as the
        slot finishes them, in order. The batch can end early (the slot process's ``_run_orders``):
        the orders whose outcome was not yielded were not run. If that is because the method's
        worker could not be (re)started, SlotStartError is raised at the end (with the method's
        abnormal ends in a row). SlotGone if the process ends first."""
        self._settle()
        self._send(msg.RunFits(orders))
        while True:
            reply = self._receive()
            if isinstance(reply, msg.Outcomes):
                yield from reply.outcomes
                continue
            if not isinstance(reply, msg.BatchEnd):
                raise msg.BadSlotMessage(f"slot message: got a {type(reply).__name__} in a batch of fits")
            if reply.start_failed is not None:
                raise SlotStartError(reply.start_failed)
            return

    def cancel(self) -> None:
        """Kill the fit in flight and end the process (from any thread)."""
        if self.process.pid is not None and self.alive:
            try:
                os.kill(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        """Ask the process to end its workers and exit, without waiting (``close`` waits): the
        slots of an executor wind down side by side. Killed at once if it was never sent
        anything: it may still be importing, and holds no worker."""
        if self._stopped:
            return
        self._stopped = True
        if not self._used:
            self.process.kill()
        elif self.alive:
            try:
                self._conn.send_bytes(msg.encode(msg.Stop()))
            except OSError:
                pass

    def close(self, timeout: float = 10.0) -> None:
        """``stop`` the process and wait for it to exit; kill it if it does not in time."""
        self.stop()
        self.process.join(timeout)
        if self.alive:
            self.process.kill()
            self.process.join(1.0)
        self._conn.close()
