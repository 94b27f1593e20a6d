"""How a method's worker process is kept apart from srbf, from the run and from its own leftovers.

A method is untrusted code. Every worker (``Worker._spawn``) starts through ``start_process``:

- with a clean environment: the variables in ``ALLOWED_ENV`` (and ``LC_*``) from srbf's own, the
  private directory as ``TMPDIR``, then the config's ``env``; nothing else of srbf's environment;
- in a private working and temporary directory (``private_dir``), removed when the process ends;
- with no file descriptor but the protocol pipes, its output pipe and ``/dev/null`` as stdin;
- under ``worker_guard.py``, which kills everything the method started when the worker ends,
  when srbf stops it, and when srbf dies (parent-death signal);
- from one long-lived thread: the kernel sends the parent-death signal when the *thread* that
  started a process ends, so starting workers from short-lived threads would kill them early.

With a ``Sandbox`` (``srbf run --sandbox``), the process runs under bubblewrap: the filesystem
read-only except the private directory, ``/tmp`` and ``/run`` empty, the ``hidden`` paths (results
directory, config, catalogs) replaced by empty or unreadable ones, no network, and its own PID,
IPC and UTS namespaces, so srbf's memory, command line and environment are out of reach.
bubblewrap reads its arguments from a memory file, so they do not show in ``/proc/1/cmdline``.

``method_seed`` derives the seed a method receives from the fit's key under the store's secret.
docs/fairness.md says what each level guarantees and what none can.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from srbf.core import SrbfError, TaskKey

GUARD = Path(__file__).resolve().with_name("worker_guard.py")
ALLOWED_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "JULIA_NUM_THREADS",
    "PYTHON_JULIAPKG_EXE",  # the Julia PySR runs on, when not on PATH (its method.yaml's needs_variables)
)
ALLOWED_PREFIXES = ("LC_",)
_STOP_SECONDS = 2.0  # how long the guard gets to end its tree before its group is SIGKILLed


class SandboxError(SrbfError, RuntimeError):
    """bubblewrap cannot run here; the message is one line saying why."""


# ---------------------------------------------------------------------------- environment


def clean_environment(changes: Mapping[str, str | None], private: Path) -> dict[str, str]:
    """The environment a worker starts with: the allow-listed variables of this process, the
    private directory as its temporary directory, then ``changes`` (value None removes)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name in ALLOWED_ENV or name.startswith(ALLOWED_PREFIXES)
    }
    env.update(TMPDIR=str(private), TMP=str(private), TEMP=str(private))
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


def private_dir() -> Path:
    """A new directory only this worker process uses (mode 0700), for its cwd and temp files."""
    return Path(tempfile.mkdtemp(prefix="srbf-worker-"))


def remove_private_dir(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------------------- the sandbox


@dataclass(frozen=True)
class Sandbox:
    """Run workers under bubblewrap, with ``hidden`` paths (files or folders) out of reach."""

    hidden: tuple[str, ...] = ()

    def options(self, private: Path, visible: Sequence[Path]) -> list[str]:
        """bubblewrap's options for one worker process.

        ``visible``: folders the worker needs even where they lie under /tmp or a hidden folder
        (srbf's worker scripts, the method's folder, the interpreter's prefix); they are bound
        read-only before the hidden paths are emptied, so a config or results folder inside them
        stays hidden."""
        args = ["--die-with-parent", "--new-session", "--unshare-all", "--ro-bind", "/", "/"]
        args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if Path("/run").is_dir():
            args += ["--tmpfs", "/run"]
        shown = [Path(p).resolve() for p in dict.fromkeys(visible) if Path(p).is_dir()]
        hidden = [Path(p).resolve() for p in dict.fromkeys(self.hidden) if Path(p).exists()]
        outer = [h for h in hidden if not any(o in h.parents for o in hidden)]
        args += _binds(shown) + ["--bind", str(private), str(private)] + _hides(outer)
        # A method folder inside a hidden one (results: ".") shows through again, and whatever
        # hidden lies inside that folder (the config beside the method) is hidden again.
        inner = [p for p in shown if any(h == p or h in p.parents for h in outer if h.is_dir())]
        args += _binds(inner) + _hides([h for h in hidden if any(p in h.parents for p in inner)])
        args += ["--remount-ro", "/tmp"] + (["--remount-ro", "/run"] if Path("/run").is_dir() else [])
        args += ["--chdir", str(private)]
        return args


def _binds(paths: Sequence[Path]) -> list[str]:
    return [arg for p in paths for arg in ("--ro-bind", str(p), str(p))]


def _hides(paths: Sequence[Path]) -> list[str]:
    """A folder becomes an empty read-only one; a file becomes /dev/null, unreadable in there."""
    args: list[str] = []
    for p in paths:
        args += ["--tmpfs", str(p), "--remount-ro", str(p)] if p.is_dir() else ["--ro-bind", "/dev/null", str(p)]
    return args


_PROBLEM: list[str | None] = []


def sandbox_problem() -> str | None:
    """None if bubblewrap can start a sandbox here, else one line saying why not (cached)."""
    if not _PROBLEM:
        _PROBLEM.append(_probe_bwrap())
    return _PROBLEM[0]


def _probe_bwrap() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed; on Debian or Ubuntu: apt-get install bubblewrap"
    try:
        done = subprocess.run(
            [bwrap, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "true"],
            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({bwrap}) cannot run: {exc}"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap cannot create a sandbox here (are user namespaces enabled?): {why}"
    return None


# ---------------------------------------------------------------------------- starting and stopping


class _Starter:
    """One daemon thread that starts every worker process, so that their parent-death signal
    fires when srbf ends and not when the thread that asked for them does."""

    def __init__(self) -> None:
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def call(self, job: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="srbf-worker-starter", daemon=True)
                self._thread.start()
        done = threading.Event()
        box: list = []
        self._jobs.put((job, box, done))
        done.wait()
        kind, value = box[0]
        if kind == "error":
            raise value
        return value

    def _serve(self) -> None:
        while True:
            job, box, done = self._jobs.get()
            try:
                box.append(("ok", job()))
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                box.append(("error", exc))
            done.set()


_STARTER = _Starter()


def start_process(
    python: str,
    fds: tuple[int, int],
    method_file: Path,
    *,
    output: int,
    env: dict[str, str],
    private: Path,
    sandbox: Sandbox | None = None,
) -> subprocess.Popen:
    """Start the guard (and through it the worker) for ``method_file`` under ``python``.

    ``fds`` are the worker's ends of the protocol pipes (kept open in the child, nothing else
    is), ``output`` takes its stdout and stderr. Raises OSError if it cannot be started."""
    argv = [python, str(GUARD), str(fds[0]), str(fds[1]), str(method_file)]
    pass_fds = tuple(fds)
    args_fd = -1
    if sandbox is not None:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise OSError("bubblewrap (bwrap) is not installed")
        visible = [GUARD.parent, method_file.parent, Path(python).parent.parent]
        options = sandbox.options(private, visible)
        args_fd = os.memfd_create("srbf-bwrap-args", 0)  # read by bwrap, closed before the worker runs
        os.write(args_fd, b"".join(a.encode() + b"\0" for a in options))
        os.lseek(args_fd, 0, os.SEEK_SET)
        argv = [bwrap, "--args", str(args_fd), *argv]
        pass_fds += (args_fd,)

    def popen() -> subprocess.Popen:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            pass_fds=pass_fds,
            close_fds=True,
            cwd=private,
            env=env,
            start_new_session=True,  # its own session and process group, killed as a whole
        )

    try:
        return _STARTER.call(popen)
    finally:
        if args_fd >= 0:
            os.close(args_fd)


def stop_process(proc: subprocess.Popen) -> None:
    """End a worker and everything it started: SIGTERM to the guard (which kills its whole tree),
    then SIGKILL to its process group if it has not exited within a moment; reap it."""
    if proc.returncode is None:  # not reaped yet, so its pid is still its process group id
        try:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait(timeout=_STOP_SECONDS)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            pass
        if proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:
                proc.kill()
    proc.wait()


def signal_stop(pid: int | None) -> None:
    """Ask a running worker's guard to end it and its tree, from any thread (cancelling a run)."""
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


# ---------------------------------------------------------------------------- the method's seed


def method_seed(secret: bytes, key: TaskKey) -> int:
    """The seed a method receives for the fit ``key``: 31 bits of HMAC-SHA256 of the key (run
    seed included) under the results store's secret. One-way, so the method cannot recover from
    it the run seed that srbf's sampler drew its points with; stable, so a rerun gets the same.
    The repeat index is part of the key, so each repeat of a fit gets its own seed; repeat 0 is
    hashed without it, so a fit keeps the seed it had before keys had repeats."""
    values = tuple(getattr(key, f.name) for f in fields(key))  # astuple's values, without its deep copies
    message = json.dumps(values if key.repeat else values[:-1], separators=(",", ":")).encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF
