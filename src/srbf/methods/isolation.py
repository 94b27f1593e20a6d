"""How a method's worker process is kept apart from srbf, from the run and from its own leftovers.

A method is untrusted code. Every worker (``Worker._spawn``) starts through ``start_process``:

- with a clean environment: the variables in ``ALLOWED_ENV`` (and ``LC_*``) from srbf's own, the
  private directory as ``TMPDIR``, then the config's ``env``; nothing else of srbf's environment;
- in a private working and temporary directory (``private_dir``), removed when the process ends;
- with no file descriptor but the protocol pipes, its output pipe and ``/dev/null`` as stdin;
- under ``worker_guard.py``, which kills everything the method started when the worker ends,
  when srbf stops it, and when srbf dies (parent-death signal);
- in a process group of its own, SIGKILLed as a whole whenever srbf stops a worker, so that a
  method that killed its guard leaves nothing in it; and where the process that starts workers
  is a child subreaper (``adopt_orphans``: srbf's slot processes), what escaped the group too
  (``end_adopted``);
- from one long-lived thread: the kernel sends the parent-death signal when the *thread* that
  started a process ends, so starting workers from short-lived threads would kill them early.

With a ``Sandbox`` (``srbf run --sandbox``), the process runs under bubblewrap: the filesystem
read-only except the private directory, ``/tmp`` and ``/run`` empty, the ``hidden`` paths (results
directory, config, catalogs) replaced by empty or unreadable ones, no network, and its own PID,
IPC and UTS namespaces, so srbf's memory, command line and environment are out of reach. srbf's
own files are hidden too (its checkout, or its installed package), all but ``SRBF_SHOWN``: what
the worker and the built-in and roster methods import (``core``, ``expr``, ``methods``), so that
no method can import srbf's catalogs and sampler and redraw a run's points from its seed.
bubblewrap reads its arguments from a memory file, so they do not show in ``/proc/1/cmdline``.

``method_seed`` derives the seed a method receives from the fit's key under the store's secret.
docs/fairness.md says what each level guarantees and what none can.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from srbf.core import SrbfError, TaskKey, key_text
from srbf.methods.worker_guard import KILL_ROUNDS, PR_SET_CHILD_SUBREAPER, prctl

GUARD = Path(__file__).resolve().with_name("worker_guard.py")
_PACKAGE = GUARD.parent.parent  # srbf's package folder
# What a sandboxed worker sees of srbf: the worker scripts, the built-in and roster methods and the
# shared helpers (all in methods/), and what the built-ins import besides (checked by a test).
SRBF_SHOWN = (_PACKAGE / "__init__.py", _PACKAGE / "core.py", _PACKAGE / "expr", _PACKAGE / "methods")


def srbf_hidden() -> Path:
    """What of srbf a sandboxed worker must not see: the whole checkout srbf runs from (its
    catalogs, sampler, configs, tests and git history), or the installed package."""
    root = _PACKAGE.parent.parent
    if _PACKAGE.parent.name == "src" and (root / "pyproject.toml").is_file():
        return root
    return _PACKAGE
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
    """Run workers under bubblewrap, with ``hidden`` paths (files or folders) out of reach, and
    ``shown`` folders a method needs besides its own (an SRBench method's folder) in sight."""

    hidden: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()

    def options(self, private: Path, visible: Sequence[Path]) -> list[str]:
        """bubblewrap's options for one worker process.

        ``visible``: folders the worker needs even where they lie under /tmp or a hidden folder
        (srbf's worker scripts, the method's folder, the interpreter's prefix); they are bound
        read-only before the hidden paths are emptied, so a config or results folder inside them
        stays hidden. srbf's own files are hidden but for ``SRBF_SHOWN`` (module docstring)."""
        args = ["--die-with-parent", "--new-session", "--unshare-all", "--ro-bind", "/", "/"]
        args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if Path("/run").is_dir():
            args += ["--tmpfs", "/run"]
        visible = [*visible, *self.shown, *SRBF_SHOWN]
        shown = [Path(p).resolve() for p in dict.fromkeys(visible) if Path(p).exists()]
        own = srbf_hidden().resolve()
        hidden = [Path(p).resolve() for p in dict.fromkeys((*self.hidden, own)) if Path(p).exists()]
        outer = [h for h in hidden if not any(o in h.parents for o in hidden)]
        args += _binds(shown) + ["--bind", str(private), str(private)] + _hides(outer)
        # A method folder inside a hidden one (results: ".") shows through again, and whatever
        # hidden lies inside that folder (the config beside the method) is hidden again
        # (srbf's own folder shows only its parts, even to a method file that lies in it).
        inner = [p for p in shown if any((h == p and h != own) or h in p.parents for h in outer if h.is_dir())]
        again = [h for h in hidden if any(p in h.parents for p in inner)]
        args += _binds(inner) + _hides(again)
        emptied = [h for h in (*outer, *again) if h.is_dir()]  # read-only once what shows through is bound
        for folder in ("/tmp", *emptied, *(["/run"] if Path("/run").is_dir() else [])):
            args += ["--remount-ro", str(folder)]
        args += ["--chdir", str(private)]
        return args


def _binds(paths: Sequence[Path]) -> list[str]:
    return [arg for p in paths for arg in ("--ro-bind", str(p), str(p))]


def _hides(paths: Sequence[Path]) -> list[str]:
    """A folder becomes an empty one (made read-only at the end, ``Sandbox.options``); a file
    becomes /dev/null, unreadable in there."""
    args: list[str] = []
    for p in paths:
        args += ["--tmpfs", str(p)] if p.is_dir() else ["--ro-bind", "/dev/null", str(p)]
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
        proc = _STARTER.call(popen)
    finally:
        if args_fd >= 0:
            os.close(args_fd)
    _STARTED.add(proc.pid)
    return proc


def stop_process(proc: subprocess.Popen) -> None:
    """End a worker and everything it started: SIGTERM to the guard (which kills its whole tree),
    then, once it has exited or after a moment, SIGKILL to its process group (what is left of the
    method's processes if the method killed its guard), before the guard is reaped so that the
    group's id is still its own; reap it, then what this process adopted (``end_adopted``)."""
    if proc.returncode is None:  # not reaped yet, so its pid is still its process group id
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + _STOP_SECONDS
        while not _exited(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            proc.kill()
    proc.wait()
    _STARTED.discard(proc.pid)
    end_adopted()


def _exited(pid: int) -> bool:
    """Whether the child ``pid`` has exited, without reaping it."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


# ---------------------------------------------------------------------------- adopted orphans

_STARTED: set[int] = set()  # the guards this process started and has not reaped
_ADOPTING: list[bool] = []


def adopt_orphans() -> bool:
    """Make this process a child subreaper (Linux): a process of a method whose guard was killed
    is then reparented here instead of to init, and ``end_adopted`` ends it. Only for a process
    whose children are all workers or ``multiprocessing``'s (a slot process): any other child it
    had would be taken for an orphan. Whether it worked."""
    if not _ADOPTING:
        _ADOPTING.append(prctl(PR_SET_CHILD_SUBREAPER, 1))
    return _ADOPTING[0]


def _children() -> list[int]:
    """This process's children, zombies included (read from /proc)."""
    me = str(os.getpid()).encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            if stat[stat.rfind(b")") + 2 :].split()[1:2] == [me]:
                found.append(int(name))
    return found


def end_adopted() -> int:
    """SIGKILL and reap every child of this subreaper that it did not start itself (a worker's
    guard, a ``multiprocessing`` process): processes orphaned by a killed guard. How many."""
    if not (_ADOPTING and _ADOPTING[0]):
        return 0
    import multiprocessing

    ended = 0
    for _ in range(KILL_ROUNDS):  # a killed orphan's children are adopted in turn
        known = _STARTED | {p.pid for p in multiprocessing.active_children()}
        orphans = [pid for pid in _children() if pid not in known]
        if not orphans:
            break
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        ended += len(orphans)
    return ended


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
    """The seed a method receives for the fit ``key``: 31 bits of HMAC-SHA256 of the key's one
    canonical encoding (``srbf.core.key_text``, run seed included) under the results store's
    secret. One-way, so the method cannot recover from it the run seed that srbf's sampler drew
    its points with; stable, so a rerun gets the same, and a key read back from its stored row
    (budget 5.0 for 5) derives the same seed. The repeat index is part of the key, so each repeat
    of a fit gets its own seed."""
    digest = hmac.new(secret, key_text(key).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF
