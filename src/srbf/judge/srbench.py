"""SRBench-compatible solutions: the accuracy solution and the SymPy symbolic solution.

SRBench (La Cava et al. 2021) calls a ground-truth prediction

- an *accuracy solution* when its R^2 on the test points exceeds 0.999 (computed in scoring.py);
- a *symbolic solution* when, its test R^2 being above 0.5, the difference ``truth - prediction``
  or the ratio ``prediction / truth`` is a constant according to SymPy. Before the check every
  floating-point number in the difference and the ratio is rounded as SRBench rounds it (numbers
  below 1e-4 in magnitude become 0, the others are rounded to 3 decimals); the difference is
  simplified (``simplify(..., ratio=1)``) when it is not visibly constant; a prediction that is
  0 or NaN is never a solution. The rule itself is in ``sympy_check.py``.

SymPy can take unbounded time, so the check runs in worker processes and is limited by *work*:
a check that makes more than ``work_limit`` Python calls stops, and the prediction is recorded as
undecided (``None``) rather than guessed; the same pair gets the same answer on any machine with
the same SymPy (``sympy_check.py`` says how). A generous wall-clock backstop (``time_limit``)
remains for a check stuck inside one C call: that worker is killed (by its own process id) and
replaced, and its prediction is undecided too, with a note that says which limit it reached. A worker is a plain
``python sympy_check.py`` subprocess speaking pickled messages over its stdin and stdout: it
imports only SymPy and never re-runs the caller's main module. Trees are sent as a flat
postorder list (no recursion anywhere, whatever the depth) and converted to SymPy node by node,
never by parsing a string.
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Sequence

from srbf.expr.tree import Const, Expr, Num, Var
from srbf.judge import sympy_check
from srbf.judge.sympy_check import DEFAULT_WORK_LIMIT

DEFAULT_TIME_LIMIT = 60.0  # seconds per prediction: a backstop, far above what the work limit allows
SYMBOLIC_R2 = 0.5  # SRBench checks symbolic equality only above this test R^2
STARTUP_LIMIT = 120.0  # seconds a new worker may take to import SymPy
_MAX_FAILED_STARTS = 3
_WORKER_SCRIPT = str(Path(sympy_check.__file__).resolve())


def encode(expr: Expr) -> list[tuple]:
    """The tree as a flat postorder list: ("n", value), ("v", name), ("c", name), ("f", op, k)."""
    out: list[tuple] = []
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, Num):
            out.append(("n", float(node.value)))
        elif isinstance(node, Var):
            out.append(("v", node.name))
        elif isinstance(node, Const):
            out.append(("c", node.name))
        elif done:
            out.append(("f", node.op, len(node.args)))
        else:
            stack.append((node, True))
            stack.extend((arg, False) for arg in reversed(node.args))
    return out


def to_sympy(expr: Expr, symbols: dict | None = None):
    """A SymPy expression for an srbf tree, built node by node."""
    return sympy_check.build(encode(expr), symbols)


def symbolic_solution(truth: Expr, prediction: Expr) -> bool:
    """SRBench's symbolic-solution test in this process (no R^2 gate, no time limit)."""
    return sympy_check.check(encode(truth), encode(prediction))


@dataclass
class SymbolicOutcome:
    """The result of one check: ``solution`` is True/False, or None when undecided."""

    solution: bool | None
    undecided: bool = False
    note: str = ""


class _Worker:
    """One ``python sympy_check.py`` subprocess."""

    def __init__(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)
        env["PYTHONHASHSEED"] = "0"  # SymPy's work on a pair must not depend on string hashes
        self.process = subprocess.Popen(
            [sys.executable, _WORKER_SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.ready = False
        self.task: int | None = None
        self.deadline = 0.0

    @property
    def reader(self):
        return self.process.stdout

    def send(self, message) -> None:
        pickle.dump(message, self.process.stdin)
        self.process.stdin.flush()

    def receive(self):
        return pickle.load(self.process.stdout)

    def kill(self) -> None:
        try:
            self.process.kill()  # this worker's own process only
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


class SymbolicPool:
    """Worker processes that run the SymPy check with a hard time limit per task.

    Workers start on first use and are kept for later batches (SymPy is imported once per
    worker). ``close()`` stops them; every pool is closed at interpreter exit.
    """

    def __init__(
        self, workers: int | None = None, time_limit: float = DEFAULT_TIME_LIMIT, work_limit: int = DEFAULT_WORK_LIMIT
    ):
        self.max_workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self.time_limit = float(time_limit)
        self.work_limit = _check_work_limit(work_limit)
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._failed_starts = 0
        atexit.register(self.close)

    def run(
        self, pairs: Sequence[tuple[Expr, Expr]], time_limit: float | None = None, work_limit: int | None = None
    ) -> list[SymbolicOutcome]:
        """Check every (truth, prediction) pair, in parallel; results in the order given."""
        limit = self.time_limit if time_limit is None else float(time_limit)
        work = self.work_limit if work_limit is None else _check_work_limit(work_limit)
        encoded = [(encode(truth), encode(prediction), work) for truth, prediction in pairs]
        with self._lock:
            return self._run(encoded, limit)

    # -- the dispatch loop --------------------------------------------------------------------

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        index = self._workers.index(worker)
        if self._failed_starts >= _MAX_FAILED_STARTS:
            del self._workers[index]
        else:
            self._workers[index] = _Worker()

    def _run(self, pairs: list, limit: float) -> list[SymbolicOutcome]:
        results: list[SymbolicOutcome | None] = [None] * len(pairs)
        pending = deque(range(len(pairs)))
        while len(self._workers) < min(len(pairs), self.max_workers) and self._failed_starts < _MAX_FAILED_STARTS:
            self._workers.append(_Worker())
        startup_deadline = time.monotonic() + STARTUP_LIMIT
        while pending or any(w.task is not None for w in self._workers):
            if not self._workers:  # SymPy workers cannot start here: say so for every check left
                for index in pending:
                    results[index] = SymbolicOutcome(None, True, "the SymPy worker process could not start")
                break
            for worker in list(self._workers):
                if worker.ready and worker.task is None and pending:
                    index = pending.popleft()
                    try:
                        worker.send(pairs[index])
                    except (OSError, ValueError):
                        pending.appendleft(index)
                        self._replace(worker)
                        continue
                    worker.task = index
                    worker.deadline = time.monotonic() + limit
            busy = [w for w in self._workers if w.task is not None]
            starting = [w for w in self._workers if not w.ready]
            if not busy and time.monotonic() > startup_deadline:
                for worker in starting:
                    self._failed_starts += 1
                    self._replace(worker)
                continue
            deadlines = [w.deadline for w in busy] + ([startup_deadline] if starting else [])
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 0.0
            readable = set(wait([w.reader for w in busy + starting], timeout=timeout))
            for worker in list(self._workers):
                if worker.reader not in readable:
                    continue
                try:
                    kind, value = worker.receive()
                except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                    if worker.task is not None:
                        results[worker.task] = SymbolicOutcome(None, True, "the SymPy worker died")
                    elif not worker.ready:
                        self._failed_starts += 1
                    self._replace(worker)
                    continue
                if kind == "ready":
                    worker.ready = True
                    self._failed_starts = 0
                elif kind == "ok":
                    results[worker.task] = SymbolicOutcome(bool(value))
                    worker.task = None
                elif kind == "undecided":
                    results[worker.task] = SymbolicOutcome(None, True, str(value))
                    worker.task = None
                else:
                    results[worker.task] = SymbolicOutcome(False, False, f"SymPy raised {value}")
                    worker.task = None
            now = time.monotonic()
            for worker in list(self._workers):
                if worker.task is not None and now >= worker.deadline:
                    results[worker.task] = SymbolicOutcome(None, True, f"wall-clock backstop of {limit:g} s reached")
                    self._replace(worker)
        return [r if r is not None else SymbolicOutcome(None, True, "not run") for r in results]

    def close(self) -> None:
        """Stop the workers this pool started."""
        with self._lock:
            for worker in self._workers:
                if not worker.ready:
                    continue  # still importing SymPy: nothing to finish
                try:
                    worker.send(None)
                    worker.process.stdin.close()
                except (OSError, ValueError):
                    pass
            for worker in self._workers:
                if worker.ready:
                    try:
                        worker.process.wait(timeout=1)
                    except subprocess.TimeoutExpired:
                        pass
                worker.kill()
            self._workers = []


def _check_work_limit(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"work_limit must be a positive number of calls, got {value!r}")
    return value


_SHARED: SymbolicPool | None = None
_SHARED_LOCK = threading.Lock()


def shared_pool() -> SymbolicPool:
    """The process-wide pool used when no other is given."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = SymbolicPool()
        return _SHARED
