"""The parent side of a method's worker process: start it, hand it fits, enforce the time limit.

A ``Worker`` runs one method file in a long-lived child process (``worker_main.py``, run by path
under the interpreter the method's config names), so imports, JIT warm-up and model loading are
paid once at start and never inside a timed fit. ``fit(task)`` always returns a ``FitResult``:

- ``ok``: the method returned an expression;
- ``failed``: the method raised, or returned something that is not ``{"expression": str, ...}``
  within the ``Limits``, or the worker sent a message of the wrong shape;
- ``timeout``: no result within ``task.time_limit`` seconds; the worker and every process it
  started are killed and it restarts on next use; the trajectory reported so far is kept;
- ``crashed``: the child died during the fit (``os._exit``, a signal), or broke the protocol
  (garbage on its channel); it is killed and restarts on next use;
- ``memory_limit``: the method's processes together held more resident memory than
  ``memory_limit`` bytes; they are killed and the worker restarts on next use.

Times and memory are measured here, outside the method (``process_tree``): the wall time from
the moment the order is sent to the moment its result is received, the CPU time and the peak
memory of the worker's whole process tree as the operating system counts them. What the method
says about its own time is kept apart (``method_seconds``) and never used in their place.

Every message from the child is read through ``srbf.methods.boundary`` (text made storable,
types and sizes checked), since the method can write on the channel itself.

``restarts`` counts the restarts so that the caller can bound them. Everything the child writes to
stdout or stderr is drained continuously into a bounded buffer; failed, timed-out and crashed
fits carry its tail. The wire format is documented in ``worker_main.py``; the pipes and their
reading in ``worker_channel``; how the process is started and kept apart (clean environment,
private directory, guard, sandbox) in ``isolation``.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from srbf.methods import isolation
from srbf.methods.process_tree import TreeMeter
from srbf.methods import worker_main as wire
from srbf.methods.boundary import BadMessage, Limits, Trajectory, clean_start_message, failed, fit_result
from srbf.methods.worker_channel import Channel, ChildGone, OutputTail, reap, start_child
from srbf.core import FitResult, FitTask, SrbfError

if TYPE_CHECKING:  # NumPy is imported by the first fit: the driver imports this module before its workers start
    import numpy as np

WORKER_MAIN = Path(wire.__file__).resolve()
_DRAIN_SECONDS = 1.0  # how long to collect a dead child's last output
_SHUTDOWN_SECONDS = 2.0  # how long close() waits for a clean exit before killing
SAMPLE_SECONDS = 0.1  # how often a running fit's process tree is measured (memory, new processes)


class WorkerStartError(SrbfError, RuntimeError):
    """The method's worker could not start: missing file, bad interpreter, import error, no
    ``fit``, or ``setup`` raised. The message names the method file and the error."""


class Worker:
    """One method file running in a long-lived worker process; one fit at a time; not thread-safe.

    ``python`` is the interpreter to run it under (a path or a command name; default the current
    one); it needs NumPy, not srbf. ``options`` go to the method's optional ``setup(options)``,
    called once per process start before any fit. ``env`` adds (or, with value None, removes)
    environment variables of the clean environment a worker starts with (``isolation``);
    ``sandbox`` runs it under bubblewrap. ``start_timeout`` bounds import plus setup, ``tail_bytes``
    the output kept, ``limits`` what a fit may send back, ``memory_limit`` (bytes, None: no limit)
    the resident memory of the method's processes together. The process starts on ``start()``, on
    entering a ``with`` block, or on the first fit.
    """

    def __init__(
        self,
        method_file: str | os.PathLike,
        *,
        python: str | os.PathLike | None = None,
        options: Mapping[str, Any] | None = None,
        env: Mapping[str, str | None] | None = None,
        start_timeout: float | None = 600.0,
        tail_bytes: int = 8192,
        limits: Limits | None = None,
        sandbox: isolation.Sandbox | None = None,
        memory_limit: int | None = None,
    ):
        self.method_file = Path(method_file).expanduser().resolve()
        self.python = python
        self.options = dict(options or {})
        self.env = dict(env or {})
        self.start_timeout = start_timeout
        self.tail_bytes = int(tail_bytes)
        self.limits = limits or Limits()
        self.sandbox = sandbox
        self.memory_limit = memory_limit
        self.starts = 0  # processes started, the first one included
        self.fits = 0
        self.info: dict[str, Any] = {}  # from the child's ready message: pid, python, numpy, setup_seconds
        self._proc: subprocess.Popen | None = None
        self._channel: Channel | None = None
        self._output = OutputTail(self.tail_bytes)
        self._next_id = 0
        self._finalizer = None
        self._meter: TreeMeter | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def restarts(self) -> int:
        """Processes started after the first one (after a timeout, a crash or a close)."""
        return max(self.starts - 1, 0)

    @property
    def alive(self) -> bool:
        return self._proc is not None and not self._child_exited()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> "Worker":
        """Start the worker process if it is not running; raise WorkerStartError if it cannot."""
        if self._proc is not None:
            if not self._child_exited():
                return self
            self._discard()  # it died between fits: start a fresh one
        self._spawn()
        return self

    def close(self) -> None:
        """Ask the worker to exit; kill it and its processes if it does not within a moment."""
        proc = self._proc
        if proc is None:
            return
        if not self._child_exited():
            try:
                self._channel.send(wire.encode_header({"type": "shutdown"}))
                proc.wait(timeout=_SHUTDOWN_SECONDS)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self._discard()

    def __enter__(self) -> "Worker":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.alive else "not running"
        return f"Worker({str(self.method_file)!r}, {state}, fits={self.fits}, restarts={self.restarts})"

    # ------------------------------------------------------------------ fitting

    def fit(self, task: FitTask) -> FitResult:
        """Run one fit and return its result, whatever happens to the method.

        ``wall_seconds`` runs from sending the order to receiving the result, ``cpu_seconds`` and
        ``peak_memory_bytes`` are the worker's process tree's (module docstring); for a crash CPU
        is unknown and the peak is the largest seen. The time limit runs from the moment the task
        has been handed over.

        Raises ValueError for a malformed task (the caller's bug) and WorkerStartError if the
        worker has to be (re)started and cannot be.
        """
        X, y, header = _fit_message(task)
        self._next_id += 1
        header["id"] = self._next_id
        try:
            data = wire.encode_header(header)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"FitTask.options must be JSON-serialisable: {exc}") from exc
        self.start()
        try:
            result = self._run(task.time_limit, X, y, header["id"], data)
        except BaseException:  # interrupted (Ctrl-C, a driver's exception): leave no fit running
            self._kill()
            raise
        from srbf.methods.own_predictions import check_own_predictions

        return check_own_predictions(result, X, task.variables)

    def _run(self, limit: float | None, X: np.ndarray, y: np.ndarray, fit_id: int, data: bytes) -> FitResult:
        self.fits += 1
        mark = self._output.total
        trajectory = Trajectory(self.limits)
        meter = self._meter
        meter.start()
        t0 = time.monotonic()
        try:
            self._channel.send(data, (X, y))
        except (BrokenPipeError, ConnectionResetError, ValueError):
            return self._died(trajectory, time.monotonic() - t0, mark)
        deadline = time.monotonic() + limit if limit is not None and math.isfinite(limit) else None
        sample_at = t0 + SAMPLE_SECONDS
        while True:
            try:
                frame = self._next_frame(sample_at if deadline is None else min(deadline, sample_at))
            except ChildGone:
                return self._died(trajectory, time.monotonic() - t0, mark)
            now = time.monotonic()
            if frame is None:
                if deadline is not None and now >= deadline:
                    return self._timed_out(limit, trajectory, now - t0, mark)
                sample_at = now + SAMPLE_SECONDS
                if meter.sample() > (self.memory_limit if self.memory_limit is not None else math.inf):
                    return self._over_memory(trajectory, now - t0, mark)
                continue
            message = frame[0]
            if message.get("id") != fit_id:
                if message.get("type") == "result":  # an honest worker sends one result per fit
                    self._kill()
                    reason = ("the worker broke the protocol: a second result for an earlier fit arrived during this one "
                              "(a message the method wrote itself); it was killed and restarts on next use")
                    return self._abnormal_end("crashed", reason, trajectory, now - t0, mark)
                continue  # a stray report from an earlier fit
            if message["type"] == "result":
                return self._finish(message, trajectory, now - t0, mark)
            if message["type"] == "report":
                try:
                    trajectory.add(message, now - t0)
                except BadMessage as bad:  # forged by the method: its process may be doing anything
                    self._kill()
                    return self._abnormal_end("failed", str(bad), trajectory, time.monotonic() - t0, mark)

    def _finish(self, message: dict, trajectory: Trajectory, elapsed: float, mark: int) -> FitResult:
        """The fit's result from its ``result`` message, with srbf's own measurements."""
        cpu, peak = self._meter.stop(scan=elapsed >= SAMPLE_SECONDS)
        if self.memory_limit is not None and peak is not None and peak > self.memory_limit:
            return self._over_memory(trajectory, elapsed, mark, cpu)
        try:
            result = fit_result(message, trajectory, self.limits)
        except BadMessage as bad:  # forged by the method: its process may be doing anything
            self._kill()
            return self._abnormal_end("failed", str(bad), trajectory, elapsed, mark, cpu)
        result.wall_seconds, result.cpu_seconds, result.peak_memory_bytes = elapsed, cpu, peak
        if result.status != "ok":
            result.stderr_tail = self._tail_after_result(mark)
        return result

    def _timed_out(self, limit: float, trajectory: Trajectory, elapsed: float, mark: int) -> FitResult:
        cpu, _ = self._meter.stop(scan=True)
        self._kill()
        return self._abnormal_end(
            "timeout",
            f"no result within the time limit of {limit:g} s; the worker was killed and restarts on next use",
            trajectory,
            elapsed,
            mark,
            cpu,
        )

    def _over_memory(self, trajectory: Trajectory, elapsed: float, mark: int, cpu: float | None = None) -> FitResult:
        if cpu is None:
            cpu, _ = self._meter.stop(scan=True)
        self._kill()
        return self._abnormal_end(
            "memory_limit",
            f"the method's processes held {_mib(self._meter.peak)} of memory, over its memory_limit of "
            f"{_mib(self.memory_limit)}; the worker was killed and restarts on next use",
            trajectory,
            elapsed,
            mark,
            cpu,
        )

    def _died(self, trajectory: Trajectory, elapsed: float, mark: int) -> FitResult:
        if self._channel.protocol_error:
            reason = f"the worker broke the protocol: {self._channel.protocol_error}; it was killed and restarts on next use"
            self._kill()
        else:
            how = self._kill(grace=_DRAIN_SECONDS)
            reason = f"the worker process died during the fit ({how}); it restarts on next use"
        return self._abnormal_end("crashed", reason, trajectory, elapsed, mark)

    def _abnormal_end(
        self, status: str, reason: str, trajectory: Trajectory, elapsed: float, mark: int, cpu: float | None = None
    ) -> FitResult:
        peak = self._meter.peak if self._meter is not None and self._meter.peak else None
        result = failed(reason, trajectory, status, wall_seconds=elapsed, cpu_seconds=cpu, peak_memory_bytes=peak)
        result.stderr_tail = self._output.since(mark)
        return result

    def _tail_after_result(self, mark: int) -> str:
        self._channel.read_output()  # the child flushed before sending its result: collect what is there
        return self._output.since(mark)

    # ------------------------------------------------------------------ the process

    def _spawn(self) -> None:
        path = self.method_file
        if not path.is_file():
            raise WorkerStartError(f"method file {path} does not exist")
        python = self._resolve_python()
        private = isolation.private_dir()
        env = isolation.clean_environment(self.env, private)
        try:
            proc, channel = start_child(
                python,
                path,
                env=env,
                private=private,
                sandbox=self.sandbox,
                output=self._output,
                max_header=self.limits.frame_bytes,  # no honest worker sends a payload or a bigger header
            )
        except OSError as exc:
            isolation.remove_private_dir(private)
            raise WorkerStartError(f"cannot run interpreter {python} for method {path}: {exc}") from exc
        self._proc, self._channel = proc, channel
        self._finalizer = weakref.finalize(self, reap, proc, channel, private)
        self.starts += 1
        mark = self._output.total
        self.info = {}
        self._handshake(python, mark)

    def _handshake(self, python: str, mark: int) -> None:
        path = self.method_file
        try:
            start = wire.encode_header(
                {"type": "start", "protocol": wire.PROTOCOL_VERSION, "options": self.options, "limits": self.limits.for_worker()}
            )
        except (TypeError, ValueError) as exc:
            self._discard()
            raise WorkerStartError(f"{path}: options for setup() are not JSON-serialisable: {exc}") from exc
        limit = self.start_timeout
        deadline = time.monotonic() + limit if limit is not None else None
        try:
            self._channel.send(start)
            frame = self._next_frame(deadline)
        except (ChildGone, BrokenPipeError, ConnectionResetError):
            how = self._kill(grace=_DRAIN_SECONDS)
            raise WorkerStartError(
                f"worker for {path} (interpreter {python}) exited during start ({how})"
                + _with_output(self._output.since(mark))
            ) from None
        if frame is None:
            self._kill()
            raise WorkerStartError(
                f"worker for {path} did not become ready within {limit:g} s (import and setup)"
                + _with_output(self._output.since(mark))
            )
        message = clean_start_message(frame[0])
        if message.get("type") != "ready":
            self._channel.read_output()
            output = self._output.since(mark)
            self._kill()
            detail = str(message.get("error", f"unexpected message {message.get('type')!r}"))[: wire.ERROR_CHARS]
            if message.get("traceback"):
                detail = f"{detail}\n\n{str(message['traceback'])[-wire.TRACEBACK_CHARS :]}"
            raise WorkerStartError(f"method {path} failed to start: {detail}" + _with_output(output))
        self.info = {k: v for k, v in message.items() if k != "type"}
        self._meter = TreeMeter(self._proc.pid)
        self._meter.settle(self.info.get("pid"))

    def _resolve_python(self) -> str:
        if self.python is None:
            return sys.executable
        name = os.fspath(self.python)
        found = shutil.which(name) if os.sep not in name else (name if os.access(name, os.X_OK) else None)
        if not found:
            raise WorkerStartError(f"interpreter {name!r} for method {self.method_file} not found or not executable")
        return str(Path(found).absolute())

    def _child_exited(self) -> bool:
        """Whether the child has exited, without reaping it (so its process group id stays ours)."""
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return True
        if hasattr(os, "waitid"):
            try:
                return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                return True
        return proc.poll() is not None

    def _kill(self, grace: float = 0.0) -> str:
        """Kill the child and every process it started, collect its last output, forget it; say how
        it ended.

        ``grace``: seconds to let a child that closed the channel finish exiting on its own, so
        that its exit code or signal can be reported.
        """
        proc = self._proc
        if proc is None:
            return "not running"
        deadline = time.monotonic() + grace
        while not self._child_exited() and time.monotonic() < deadline:
            self._channel.poll(0.005)
        exited_before = self._child_exited()
        isolation.stop_process(proc)
        deadline = time.monotonic() + _DRAIN_SECONDS
        while not self._channel.out_eof and time.monotonic() < deadline:
            self._channel.poll(min(0.05, deadline - time.monotonic()))
        code = proc.returncode
        self._discard()
        if not exited_before:
            return "alive but silent, killed by srbf" if grace else "killed by srbf"
        if code is not None and code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"

    def _discard(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # kills (if still running), reaps, closes the pipes
            self._finalizer = None
        self._proc = None
        self._channel = None

    def _next_frame(self, deadline: float | None):
        """The next frame from the child; None once ``deadline`` passes; ChildGone if it died."""
        return self._channel.next_frame(deadline, self._child_exited)

def start_worker(method_file: str | os.PathLike, **kwargs: Any) -> Worker:
    """A started Worker (see Worker for the keyword arguments); raises WorkerStartError."""
    return Worker(method_file, **kwargs).start()


def _fit_message(task: FitTask) -> tuple[np.ndarray, np.ndarray, dict]:
    import numpy as np

    X = np.ascontiguousarray(task.X, dtype="<f8")
    y = np.ascontiguousarray(task.y, dtype="<f8")
    if X.ndim != 2:
        raise ValueError(f"FitTask.X must be 2-D (points x variables), got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"FitTask.y must have shape ({X.shape[0]},) to match X, got {y.shape}")
    if len(task.variables) != X.shape[1]:
        raise ValueError(f"FitTask.variables names {len(task.variables)} columns, X has {X.shape[1]}")
    budget = task.key.budget
    if isinstance(budget, float) and budget.is_integer():
        budget = int(budget)
    header = {
        "type": "fit",
        "id": 0,
        "budget": budget,
        "seed": int(task.key.seed if task.method_seed is None else task.method_seed),
        "variables": [str(v) for v in task.variables],
        "options": task.options,
        "arrays": [{"name": "X", "shape": list(X.shape)}, {"name": "y", "shape": list(y.shape)}],
    }
    return X, y, header


def _mib(n: int | None) -> str:
    return f"{(n or 0) / 2**20:,.0f} MiB"


def _with_output(output: str) -> str:
    return f"\n--- worker output (tail) ---\n{output}" if output.strip() else ""
