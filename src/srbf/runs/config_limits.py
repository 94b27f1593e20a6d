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
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["MAX_ALIASES", "MAX_CHECKPOINTS", "MAX_DEPTH", "MAX_DRAWS", "MAX_POINTS", "MAX_REPEATS", "MAX_VALUES",
           "MAX_VARIANTS", "data_problems"]

MAX_DEPTH = 32  # nesting levels from the top of the file; real configs use under 10
MAX_ALIASES = 50  # YAML alias uses (*name) per file: enough to share a few blocks, never a bomb
MAX_VALUES = 100_000  # values in the whole config, every alias expanded
MAX_VARIANTS = 10_000  # method configurations of one run (sweep grid points); --allow-large lifts it
MAX_DRAWS = 1_000  # draws per problem
MAX_REPEATS = 1_000  # fits of a method on the same points (repeats)
MAX_CHECKPOINTS = 100_000  # checkpoints per fit's time limit: one per 6 ms of a 600 s fit
MAX_POINTS = 10_000_000  # points per draw (n_support, n_validation): 10 variables take 800 MB


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
