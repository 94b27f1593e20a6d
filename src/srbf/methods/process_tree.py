"""A worker's process tree as the operating system counts it, read by srbf from outside the method.

A fit's times and memory must not come from the method's own process: a method can write its own
result message, or rewrite srbf's code in its interpreter, and claim a microsecond. So the parent
(``Worker``, in the slot process) reads them from ``/proc`` about the tree rooted at the process
it started (the guard, or bubblewrap in front of it), the worker and every process below:

- **CPU seconds**: user plus system time of every process of the tree, and of the children each
  of them collected (a method's finished subprocesses; orphans the guard adopted and reaped),
  from ``/proc/PID/stat`` in clock ticks (usually 1/100 s). Where the tree did not change during
  the fit, the worker's live threads' scheduler time (``/proc/PID/task/*/schedstat``, nanoseconds)
  replaces its ticks, so a fit of a few milliseconds is not read as 0 or 10 ms.
- **resident memory**: the sum of the tree's resident sets (``stat``'s rss), sampled during the
  fit, and each process's high-water mark (``VmHWM``), which srbf resets when a fit starts
  (``/proc/PID/clear_refs``) so that the mark is the fit's own. Resident sets count shared pages
  (libraries) once per process, so a tree of many processes is counted on the high side.

A process that ended is counted from its own entry until it is collected (a zombie), then in the
ticks of the process that collected it, so each tick counts once: the CPU of a fit is the tree's
total at the end less its total at the start. Lost: the CPU of a process whose parent ignores
SIGCHLD (the kernel reaps it with its times), and the memory of a process that lives less than
the time between two scans.
Elsewhere than Linux every reading is None. Why /proc and not a cgroup: docs/running.md.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from srbf.methods.worker_guard import descendants

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_HAS_PROC = os.path.isdir("/proc/self/task")
SCAN_SECONDS = 0.5  # how often a sample looks for new processes (a walk over /proc: 3-12 ms)


@dataclass
class Reading:
    """One look at the tree: per process its CPU ticks (its own and its collected children's) and
    resident bytes; the worker's live threads' scheduler nanoseconds."""

    ticks: dict[int, int] = field(default_factory=dict)
    rss: int = 0
    worker_ns: int | None = None

    @property
    def total_ticks(self) -> int:
        return sum(self.ticks.values())


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(CPU ticks of the process and its collected children, resident bytes, start time in ticks
    since boot); None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()  # the command name may hold spaces and ')'
    if len(fields) < 22:
        return None
    return sum(int(f) for f in fields[11:15]), int(fields[21]) * _PAGE, int(fields[19])


def _thread_ns(pid: int) -> int | None:
    """The scheduler nanoseconds of the live threads of ``pid`` (None if unreadable)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as handle:
                total += int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total


def _high_water(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeMeter:
    """Measures the fits of one worker process tree (``root``: the process srbf started).

    ``start()`` before the order is sent; ``sample()`` during the fit (the tree's resident bytes
    now, the peak kept); ``stop()`` once the result is in: ``(cpu_seconds, peak_bytes)``.
    New processes are looked for (a walk over /proc, 3 ms on a quiet machine with a hundred
    processes, 12 ms on a busy one) by a sample every ``SCAN_SECONDS`` and at the end of a fit
    that lasted long enough (``scan``); otherwise the processes seen last time are read.
    """

    def __init__(self, root: int):
        self.root = root
        self.members: list[int] = [root]
        self._born: dict[int, int] = {}  # each member's start time: a pid reused by another process is not ours
        self.worker: int | None = None
        self.peak = 0
        self._start: Reading | None = None
        self._scanned = 0.0

    def _read(self, scan: bool) -> Reading:
        if scan:
            self.members = [self.root, *descendants(self.root, zombies=True)]
            self._born = {}
            self._scanned = time.monotonic()
        reading = Reading()
        for pid in self.members:
            got = _stat(pid)
            if got is not None and self._born.setdefault(pid, got[2]) == got[2]:
                reading.ticks[pid] = got[0]
                reading.rss += got[1]
        if self.worker is not None:
            reading.worker_ns = _thread_ns(self.worker)
        return reading

    def settle(self, worker_pid: int | None) -> None:
        """Look at the tree once the worker is ready; ``worker_pid`` is its pid as it sees it."""
        if _HAS_PROC:
            self._read(scan=True)
            self.worker = find_worker(self.members, worker_pid)

    def start(self) -> None:
        """Take the starting reading; reset every known process's high-water mark."""
        if not _HAS_PROC:
            return
        self._start = self._read(scan=False)
        for pid in self._start.ticks:
            try:
                with open(f"/proc/{pid}/clear_refs", "wb") as handle:
                    handle.write(b"5")
            except OSError:
                pass
        self.peak = self._start.rss

    def sample(self) -> int:
        """The tree's resident bytes now; the peak is kept."""
        if not _HAS_PROC:
            return 0
        rss = self._read(scan=time.monotonic() - self._scanned >= SCAN_SECONDS).rss
        self.peak = max(self.peak, rss)
        return rss

    def stop(self, scan: bool) -> tuple[float | None, int | None]:
        """The fit's CPU seconds and peak resident bytes (None, None where /proc is missing)."""
        start = self._start
        if start is None or not _HAS_PROC:
            return None, None
        self._start = None
        end = self._read(scan)
        # A process that ended was collected by one in the tree, whose ticks took its own over:
        # the totals' difference counts each tick once.
        cpu = max(end.total_ticks - start.total_ticks, 0) / _TICK
        same_tree = end.ticks.keys() == start.ticks.keys()
        if same_tree and start.worker_ns is not None and end.worker_ns is not None:
            others = sum(t - start.ticks[pid] for pid, t in end.ticks.items() if pid != self.worker)
            precise = max(end.worker_ns - start.worker_ns, 0) / 1e9 + others / _TICK
            if abs(precise - cpu) <= 2 / _TICK:  # no thread or child ended: the nanoseconds are the truth
                cpu = precise
        marks = sum(_high_water(pid) for pid in end.ticks)
        self.peak = max(self.peak, end.rss, marks)
        return cpu, self.peak


def find_worker(members: list[int], pid: int | None) -> int | None:
    """Of ``members``, the process that is ``pid`` in its own PID namespace (the worker's pid as
    the worker sees it; under bubblewrap not the pid srbf sees); None if none is."""
    if pid is None:
        return None
    for member in members:
        try:
            with open(f"/proc/{member}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"NSpid:"):
                        if int(line.split()[-1]) == pid:
                            return member
                        break
        except (OSError, ValueError, IndexError):
            continue
    return None


def machine_memory() -> int | None:
    """This machine's physical memory in bytes (None if unknown)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * _PAGE
    except (ValueError, OSError, AttributeError):
        return None
