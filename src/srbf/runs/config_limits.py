"""The sizes a config may have, and the one walk that checks its raw data against them.

A config is read before anything about it is known, so a hostile or mistyped one must be refused
before it can cost time or memory: options nested thousands deep (a RecursionError), a YAML alias
bomb (a few lines that expand to billions of values), a NUL byte (no process can take it in an
argument or an environment variable), a sweep grid of millions of variants, ``draws: 10**12``.
Each limit is far above any real config (docs/config.md, "Limits"); each refusal is one line that
names the file, the key and the limit.

``config_yaml`` enforces the alias count and the depth while composing the YAML (before PyYAML's
own recursion can fail); :func:`data_problems` checks depth, size and NUL bytes of the loaded data,
so a dict given to ``config_from_dict`` is held to the same limits; the schema checks the sweep
grid (``MAX_VARIANTS``) and the sampling sizes.

Every numeric field of a config has a ``Range`` here (docs/config.md, "Ranges"): the schema's
field types carry it, its validator checks it, and the tests generate their bad values from it
(below the low end, above the high end, NaN, text), so a new numeric field cannot go unchecked.
``workers`` is bounded by the machine (``max_workers``): a config may not start more processes
than the machine has cores and memory to hold.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from srbf.runs.config_errors import _show

__all__ = ["MAX_ALIASES", "MAX_BUDGET", "MAX_CHECKPOINTS", "MAX_DEPTH", "MAX_DRAWS", "MAX_FIT_BYTES", "MAX_LIMIT",
           "MAX_MEMORY_LIMIT", "MAX_NOISE", "MAX_POINTS", "MAX_REPEATS", "MAX_SEED", "MAX_TIME_LIMIT",
           "MAX_TRAJECTORY_ROWS", "MAX_VALUES", "MAX_VARIANTS", "Range", "data_problems", "max_workers"]

MAX_DEPTH = 32  # nesting levels from the top of the file; real configs use under 10
MAX_ALIASES = 50  # YAML alias uses (*name) per file: enough to share a few blocks, never a bomb
MAX_VALUES = 100_000  # values in the whole config, every alias expanded
MAX_VARIANTS = 10_000  # method configurations of one run (sweep grid points); --allow-large lifts it
MAX_DRAWS = 1_000  # draws per problem
MAX_REPEATS = 1_000  # fits of a method on the same points (repeats)
MAX_CHECKPOINTS = 100_000  # checkpoints per fit's time limit: one per 6 ms of a 600 s fit
MAX_POINTS = 10_000_000  # points per draw (n_support, n_validation): 10 variables take 800 MB
MAX_SEED = 2**63 - 1  # run seeds: what a 64-bit signed integer column holds
MAX_LIMIT = 1_000_000  # problems per catalog (limit); the largest shipped catalog has under 7,000
MAX_NOISE = 100.0  # relative label noise: 100 times the targets' spread leaves nothing to fit
MAX_BUDGET = 2.0**62  # a budget rung (the powers_of_two short form reaches 2**62)
MAX_TIME_LIMIT = 7 * 24 * 3600.0  # seconds per fit: a week
MAX_FIT_BYTES = 2**30  # a fit's limits on bytes sent back (expression, internals, trajectory): 1 GiB
MAX_TRAJECTORY_ROWS = 10_000_000  # a fit's limit on trajectory rows
MAX_MEMORY_LIMIT = 2.0**24  # MiB per fit's process tree (memory_limit): 16 TiB, beyond any one machine
WORKERS_PER_CORE = 4  # workers beyond the cores only queue; a few more hide a slow method start
WORKER_MEMORY = 256 * 2**20  # bytes a worker process needs at least (an interpreter with NumPy)


def max_workers() -> int:
    """The most worker processes a config may ask for on this machine: WORKERS_PER_CORE per core,
    and no more than the memory holds at WORKER_MEMORY each (at least 1)."""
    cores = os.cpu_count() or 1
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # a platform that does not say: cores decide
        memory = cores * WORKERS_PER_CORE * WORKER_MEMORY
    return max(1, min(WORKERS_PER_CORE * cores, memory // WORKER_MEMORY))


@dataclass(frozen=True)
class Range:
    """The values a numeric config field may take: ``low`` .. ``high`` (``high`` may be a function
    of the machine), integers only if ``integer``; ``low`` itself is excluded when ``open_low``
    (a positive number). ``problem`` words what is wrong with a value, in one line."""

    low: float
    high: float | Callable[[], float]
    integer: bool = True
    open_low: bool = False

    @property
    def upper(self) -> float:
        return self.high() if callable(self.high) else self.high

    def kind(self) -> str:
        """What the field holds, as its error message says it: 'a positive integer', 'a number >= 0'."""
        noun = "integer" if self.integer else "number"
        if self.low == 0:
            return f"a positive {noun}" if self.open_low else ("a non-negative integer" if self.integer else "a number >= 0")
        if self.low == 1 and self.integer:
            return "a positive integer"
        return f"an {noun} >= {self.low:g}" if self.integer else f"a number >= {self.low:g}"

    def describe(self) -> str:
        """The whole range, as docs/config.md lists it."""
        return f"{self.kind()}, at most {_figure(self.upper)}"

    def problem(self, value: Any) -> str | None:
        """None if ``value`` is in range; else the message (one line, with the value)."""
        number = value
        if self.integer and isinstance(value, float) and value.is_integer():
            number = int(value)
        kind_ok = not isinstance(number, bool) and (
            isinstance(number, int) if self.integer else isinstance(number, (int, float)) and math.isfinite(number))
        if not kind_ok or number < self.low or (self.open_low and number == self.low):
            return f"must be {self.kind()}, got {_show(value)}"
        if number > self.upper:
            return f"must be at most {_figure(self.upper)} (the limit), got {_show(value)}"
        return None


def _figure(number: float) -> str:
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"


SEED = Range(0, MAX_SEED)
LIMIT = Range(1, MAX_LIMIT)
WORKERS = Range(1, max_workers)
DRAWS = Range(1, MAX_DRAWS)
REPEATS = Range(1, MAX_REPEATS)
CHECKPOINTS = Range(1, MAX_CHECKPOINTS)
POINTS = Range(1, MAX_POINTS)
NOISE = Range(0, MAX_NOISE, integer=False)
BUDGET = Range(0, MAX_BUDGET, integer=False, open_low=True)
TIME_LIMIT = Range(0, MAX_TIME_LIMIT, integer=False, open_low=True)
FIT_BYTES = Range(1, MAX_FIT_BYTES)
TRAJECTORY_ROWS = Range(1, MAX_TRAJECTORY_ROWS)
MEMORY_LIMIT = Range(0, MAX_MEMORY_LIMIT, integer=False, open_low=True)


def data_problems(data: Any) -> list[tuple[tuple[Any, ...], str]]:
    """(key path, message) for each limit ``data`` breaks: nesting deeper than MAX_DEPTH, more than
    MAX_VALUES values (shared references counted each time they appear, as a YAML alias expands),
    and a text or key holding a NUL byte. Stops at the first size problem."""
    problems: list[tuple[tuple[Any, ...], str]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    seen = 0
    while stack:
        at, value = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return problems + [(at, f"the config holds more than {MAX_VALUES:,} values (YAML aliases expanded), "
                                    "the limit")]
        if len(at) > MAX_DEPTH:
            return problems + [(at[:MAX_DEPTH], f"nested deeper than {MAX_DEPTH} levels, the limit")]
        if isinstance(value, str):
            if "\0" in value:
                problems.append((at, "holds a NUL byte (\\0), which no file name, argument or environment "
                                     "variable can carry"))
        elif isinstance(value, Mapping):
            for key, item in reversed(list(value.items())):
                if isinstance(key, str) and "\0" in key:
                    problems.append((at, f"the key {key!r} holds a NUL byte (\\0)"))
                stack.append((at + (key,), item))
        elif isinstance(value, (list, tuple)):
            stack.extend((at + (i,), item) for i, item in reversed(list(enumerate(value))))
    return problems
