"""The judge's stack: the library versions a metrics row was computed with, and which stored rows
were computed with another.

The judge is deterministic for one judge version on one stack, but a new NumPy, SciPy, SymPy or
mpmath can move a score (a rounding in a fit, a simplification that now succeeds). So every
metrics row records ``judge_stack()`` next to its judge version, and the scoring pass compares the
stored rows with the stack it runs on: rows of the same judge version from another stack (or from
before stacks were recorded) are kept and named in one warning, and re-scored only when asked
(``srbf score --force``), so that a store never silently mixes stacks.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from srbf.store.schema import JUDGE_STACK_COLUMNS

LIBRARIES = ("numpy", "scipy", "sympy", "mpmath")


def judge_stack() -> dict[str, str]:
    """The Python and numeric library versions of this process, keyed as ``JUDGE_STACK_COLUMNS``
    (the scoring workers are children of this interpreter, so they share them)."""
    versions = {"python": platform.python_version(), **{name: metadata.version(name) for name in LIBRARIES}}
    return {column: versions[column.removesuffix("_version")] for column in JUDGE_STACK_COLUMNS}


def _libraries(row: Any) -> tuple:
    return tuple(getattr(row, column) for column in JUDGE_STACK_COLUMNS)


def other_stack_ids(stored: Sequence[Any], stack: dict[str, str]) -> set[int]:
    """The prediction ids in ``stored`` (``ResultsStore.metric_stack_rows`` of one judge version)
    whose metrics were computed with another stack than ``stack``, or with one not recorded."""
    wanted = tuple(stack[column] for column in JUDGE_STACK_COLUMNS)
    return {int(row.prediction_id) for row in stored if _libraries(row) != wanted}


def differences(stored: Sequence[Any], ids: set[int], stack: dict[str, str]) -> str:
    """How the stored stacks of ``ids`` differ from ``stack``: ``numpy 1.26.4 -> 2.1.3, ...``."""
    rows = [_libraries(row) for row in stored if row.prediction_id in ids]
    changes = []
    for i, column in enumerate(JUDGE_STACK_COLUMNS):
        before = sorted({str(row[i]) for row in rows if row[i] is not None and str(row[i]) != stack[column]})
        if before:
            changes.append(f"{column.removesuffix('_version')} {'/'.join(before)} -> {stack[column]}")
    unrecorded = sum(1 for row in rows if all(value is None for value in row))
    if unrecorded:
        changes.append(f"{unrecorded} with no stack recorded")
    return ", ".join(changes)
