"""How the judge's metrics become rows in the store: the ``metrics`` inserts.

One row per (prediction, judge version), its metrics as one JSON text and the judge stack that
scored it. A row already there is kept unless the caller replaces it; metric names are checked
against the frame columns they would clash with before anything is written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from srbf.store.jsontext import dumps
from srbf.store.rows import now_text
from srbf.store.schema import METRIC_FRAME_COLUMNS
from srbf.store.stacks import judge_stack_id

__all__ = ["check_names", "insert_metrics", "metric_text"]

_INSERT_METRICS = (
    "INSERT INTO metrics (prediction_id, judge_version, metrics, created_at, judge_stack_id) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (prediction_id, judge_version) "
)
_REPLACE = "DO UPDATE SET metrics = excluded.metrics, created_at = excluded.created_at, judge_stack_id = excluded.judge_stack_id"


def check_names(metrics: Mapping[str, Any], accepted: set[str]) -> None:
    """ValueError unless every metric name is a string and clashes with no frame column; names in
    ``accepted`` passed before (a pass's records share theirs: checked once, not per record)."""
    if metrics.keys() <= accepted:
        return
    bad = [name for name in metrics if not isinstance(name, str) or name in METRIC_FRAME_COLUMNS]
    if bad:
        raise ValueError(f"metric names {bad!r} are not strings or clash with columns {METRIC_FRAME_COLUMNS}")
    accepted.update(metrics)


def metric_text(prediction_id: int, metrics: Mapping[str, Any]) -> str:
    """The metrics of one prediction as the JSON text stored (NaN and infinities kept, ``jsontext``)."""
    return dumps(dict(metrics), f"metrics of prediction {prediction_id}")


def insert_metrics(conn: sqlite3.Connection, rows: Sequence[tuple[int, str]], judge_version: str,
                   stack: Sequence[str | None], replace: Collection[int] = ()) -> int:  # fmt: skip
    """Insert ``rows`` ((prediction id, metric text)) of ``judge_version``, scored with ``stack``;
    rows of predictions in ``replace`` overwrite that judge's metrics, others keep them. Return
    how many rows were written."""
    stack_id = judge_stack_id(conn, str(judge_version), stack)
    created_at = now_text()
    batches: dict[bool, list[tuple]] = {True: [], False: []}
    for prediction_id, text in rows:
        batches[prediction_id in replace].append((int(prediction_id), str(judge_version), text, created_at, stack_id))
    written = 0
    for again, batch in batches.items():
        if batch:
            cursor = conn.executemany(_INSERT_METRICS + (_REPLACE if again else "DO NOTHING"), batch)
            written += max(cursor.rowcount, 0)
    return written
