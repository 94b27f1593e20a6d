"""What a timing run records about the machine it measured on, from /proc and ``os`` alone.

Seconds only compare on one machine, so every timed method's campaign carries the machine's
facts (CPU model, cores, memory, host) and the load average before the method ran; each fit
carries the load when it ended. The readout refuses runs whose ``machine_identity`` differs.
"""

from __future__ import annotations

import os
import platform
import socket
from pathlib import Path

__all__ = ["load_average", "machine_facts", "machine_identity"]


def _cpu_model() -> str:
    """The CPU's model name as the kernel reports it (x86 ``model name``, ARM ``Hardware`` or
    ``Processor``), else what ``platform`` knows."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for field in ("model name", "Hardware", "Processor", "cpu model"):
        for line in text.splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip() == field and value.strip():
                return value.strip()
    return platform.processor() or platform.machine() or "unknown"


def _memory_bytes() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _usable_cores() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages; None where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine_facts() -> dict:
    """The machine a timing run measures on (plain JSON data)."""
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cores": _usable_cores(),
        "memory_bytes": _memory_bytes(),
        "platform": platform.platform(),
    }


def machine_identity(facts: dict) -> tuple:
    """What makes two recorded machines the same one: host, CPU model, cores and memory."""
    return tuple(facts.get(k) for k in ("hostname", "cpu_model", "cpu_count", "usable_cores", "memory_bytes"))
