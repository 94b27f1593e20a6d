"""Counting what a command left running: every process that srbf started for a case carries the
case's own temporary folder (srbf's ``TMPDIR``, and the private folders of its workers made in it)
in its environment or as its working directory, so a scan of /proc finds them all, however they
were orphaned, without knowing their pids."""

from __future__ import annotations

import os
import time
from pathlib import Path


def marked(marker: Path) -> list[int]:
    """Live processes (zombies left out) with ``marker`` in their environment or working directory."""
    needle, found = str(marker).encode(), []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
            if stat[stat.rfind(b")") + 2 :].split()[0] in (b"Z", b"X"):
                continue
            environ = Path(f"/proc/{name}/environ").read_bytes()
            cwd = os.readlink(f"/proc/{name}/cwd").encode()
        except OSError:
            continue
        if needle in environ or cwd.startswith(needle):
            found.append(int(name))
    return found


def left_after(marker: Path, seconds: float = 10.0) -> list[int]:
    """What is still running with ``marker`` after up to ``seconds`` (processes take a moment to
    follow their parent: a parent-death signal, a guard ending its tree)."""
    deadline = time.monotonic() + seconds
    while (found := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def case_env(marker: Path) -> dict[str, str]:
    """The environment of a command whose processes are to be counted: ``marker`` as its TMPDIR."""
    marker.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "TMPDIR": str(marker)}
