"""The run lock: one ``srbf run`` at a time writes a results store.

Two runs on one store would both plan the same fits and run every one of them twice, the second
copy thrown away by the store's unique key. ``RunLock`` holds an exclusive ``flock`` on a file
beside the store (``<store>.lock``) for the length of a run and writes its pid there, so a second
run refuses at once, naming the first one's pid. The kernel drops the lock when its holder ends,
however it ends (a ``kill -9`` too), so a stale lock never blocks a rerun. Readers (``srbf
status``, the analysis) take no lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from srbf.core import SrbfError


class RunLocked(SrbfError):
    """Another process holds the run lock; the message is one line naming its pid."""


class RunLock:
    """An exclusive lock on ``<store>.lock``; use as a context manager or ``acquire``/``release``."""

    def __init__(self, store_path: Path):
        self.path = Path(str(store_path) + ".lock")
        self._fd = -1

    def acquire(self) -> "RunLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise RunLocked(
                f"results store {self.path.with_suffix('')} is in use by another srbf run (pid {holder}); "
                "wait for it to finish or stop it, or choose another --results directory"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the lock; the file stays, empty of meaning
            self._fd = -1

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc_info) -> None:
        self.release()
