"""The rows the store writes: a fit checked and turned into column values, a key into columns and back.

Everything that crosses into SQLite is checked here first (key fields of the right type, a known
status and provenance, text where text belongs), so that ``ResultsStore`` writes only rows it has
already accepted and a bad fit raises before anything of its batch is written.
"""

from __future__ import annotations

import math
import operator
from datetime import UTC, datetime
from typing import Any, NamedTuple

from srbf.core import STATUSES, FitResult, TaskKey, canonical_budget
from srbf.store.jsontext import dumps
from srbf.store.schema import KEY_COLUMNS, PROVENANCES

_INT64 = (-(2**63), 2**63 - 1)


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def real_or_null(value: float | None) -> float | None:
    """A float for a REAL column: infinities kept, NaN and None stored as NULL."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def key_values(key: TaskKey) -> tuple:
    """The key's column values, checked: text fields are text, counters integers, budget not NaN."""
    values = []
    for column in KEY_COLUMNS:
        value = getattr(key, column)
        if column in ("catalog_version", "draw", "seed", "repeat"):
            try:
                value = operator.index(value)
            except TypeError:
                raise TypeError(f"task key {column} must be an integer, got {value!r}") from None
            if not _INT64[0] <= value <= _INT64[1]:
                raise ValueError(f"task key {column} {value} does not fit a 64-bit integer")
        elif column == "budget":
            value = float(value)
            if math.isnan(value):
                raise ValueError("task key budget is NaN")
        elif not isinstance(value, str):
            raise TypeError(f"task key {column} must be a string, got {value!r}")
        values.append(value)
    return tuple(values)


def stored_key(values: tuple) -> TaskKey:
    """The ``TaskKey`` of a row's ``KEY_COLUMNS`` values as SQLite gives them back: the budget in
    its canonical form (the REAL column gives 5.0 for the integer 5), so the key equals, and
    encodes (``srbf.core.key_text``) exactly as, the key the run wrote."""
    budget = KEY_COLUMNS.index("budget")
    return TaskKey(*values[:budget], canonical_budget(values[budget]), *values[budget + 1 :])


def row_key(row: Any) -> TaskKey:
    """The ``TaskKey`` of a row of a predictions or metrics frame (a Series, dict or ``itertuples``
    row); a row without a ``repeat`` (a frame made before keys had one) is repeat 0."""
    fields = row._fields if hasattr(row, "_fields") else row.keys()
    get = row.__getattribute__ if hasattr(row, "_fields") else row.__getitem__
    return TaskKey(
        method=str(get("method")),
        config_hash=str(get("config_hash")),
        catalog=str(get("catalog")),
        catalog_version=int(get("catalog_version")),
        problem_id=str(get("problem_id")),
        draw=int(get("draw")),
        budget=canonical_budget(get("budget")),
        condition=str(get("condition")),
        seed=int(get("seed")),
        repeat=int(get("repeat")) if "repeat" in fields else 0,
    )


class Fit(NamedTuple):
    """One fit to record: its key and result, the campaign it belongs to, its data's hash, and the
    hash of its inputs alone (which, unlike the targets, are the same on every machine: the
    scoring pass tells rounding from other data by it; None or "" when unknown)."""

    key: TaskKey
    result: FitResult
    campaign_id: int
    data_hash: str
    provenance: str | None = None
    inputs_hash: str | None = None


def fit_rows(fit: Fit, created_at: str | None = None) -> tuple[tuple, tuple, list[tuple]]:
    """Check one fit and turn it into its key values, its prediction columns and trajectory rows;
    ``created_at`` is its time of recording (default: now; the fits of one transaction share it)."""
    key, result = fit.key, fit.result
    values = key_values(key)
    if result.status not in STATUSES:
        raise ValueError(f"fit status {result.status!r} is not one of {', '.join(STATUSES)}")
    if fit.provenance is not None and fit.provenance not in PROVENANCES:
        raise ValueError(f"provenance {fit.provenance!r} is not one of {', '.join(PROVENANCES)}")
    if not isinstance(fit.data_hash, str):
        raise TypeError(f"data_hash must be a string, got {fit.data_hash!r}")
    if not isinstance(fit.inputs_hash, (str, type(None))):
        raise TypeError(f"inputs_hash must be a string or None, got {fit.inputs_hash!r}")
    for name in ("expression", "error"):
        if not isinstance(getattr(result, name), (str, type(None))):
            raise TypeError(f"FitResult.{name} must be a string or None, got {getattr(result, name)!r:.80}")
    try:  # the key named only on failure: formatting it for every fit costs more than the JSON
        internals = dumps(dict(result.internals), "internals")
    except TypeError as exc:
        raise TypeError(f"internals of {key}{str(exc).removeprefix('internals')}") from None
    row = (
        result.status,
        result.expression,
        result.error,
        real_or_null(result.wall_seconds),
        real_or_null(result.cpu_seconds),
        real_or_null(result.method_seconds),
        fit.data_hash,
        internals,
        result.stderr_tail or "",
        created_at or now_text(),
        fit.inputs_hash or None,
        None if result.peak_memory_bytes is None else int(result.peak_memory_bytes),
        int(bool(result.from_trajectory)),
    )
    steps = [(step, real_or_null(seconds), str(expression)) for step, (seconds, expression) in enumerate(result.trajectory)]
    return values, row, steps
