"""Read the store's tables as plain rows (tuples), without pandas.

The scoring pass plans from these rows, so that its parent process never imports pandas (about
80 MB and 0.6 s of CPU); ``frames`` makes its DataFrames from the same readers. ``ResultsStore``'s
``*_rows`` methods hand them out as named tuples (``named``), fields named as the columns.

Every reader is one SELECT, so it sees one consistent snapshot even while a run is writing (WAL).
SQL NULL reads as None. Filters are keyword arguments naming a predictions column (``method``,
``catalog``, ``campaign_id``, ``config_hash``, ``status``, ...): ``None`` means no filter, a
single value an equality, a list or tuple any of its values.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from srbf.store.jsontext import loads
from srbf.store.schema import KEY_COLUMNS, METHOD_STACK_COLUMNS, column_list

PREDICTION_COLUMNS = (
    "id",
    "campaign_id",
    *KEY_COLUMNS,
    "provenance",
    "status",
    "expression",
    "error",
    "wall_seconds",
    "cpu_seconds",
    "method_seconds",
    "data_hash",
    "inputs_hash",
    "internals",
    "stderr_tail",
    "created_at",
    "peak_memory_bytes",
    "from_trajectory",
)
TRAJECTORY_COLUMNS = ("prediction_id", "step", "seconds", "expression")
CAMPAIGN_COLUMNS = (
    "id",
    "name",
    "config",
    "config_hash",
    "provenance",
    "srbf_version",
    "git_commit",
    "git_dirty",
    "hostname",
    "platform",
    "cpu_count",
    "python_version",
    "created_at",
    *METHOD_STACK_COLUMNS,
)
FILTERABLE = frozenset(PREDICTION_COLUMNS) - {"internals", "stderr_tail", "error", "expression"}


@cache
def named(columns: tuple[str, ...]) -> type:
    """The named-tuple type of rows with ``columns`` (one type per column list)."""
    return namedtuple("Row", columns)


def where(filters: Mapping[str, Any], alias: str = "") -> tuple[list[str], list[Any]]:
    """The WHERE clauses and parameters of predictions ``filters`` (ValueError for an unknown column)."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, wanted in filters.items():
        if column not in FILTERABLE:
            raise ValueError(f"cannot filter predictions by {column!r}; filterable: {sorted(FILTERABLE)}")
        if wanted is None:
            continue
        values = list(wanted) if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
        clauses.append(f"{alias}{column} IN ({', '.join('?' * len(values))})")
        params.extend(values)
    return clauses, params


def prediction_rows(
    conn: sqlite3.Connection,
    filters: Mapping[str, Any],
    *,
    columns: Iterable[str] = PREDICTION_COLUMNS,
    unscored_by: str | None = None,
) -> list[tuple]:
    """Predictions' ``columns`` (internals as JSON text) in insertion order; ``unscored_by``: only
    those without metrics of that judge."""
    columns = tuple(columns)
    unknown = sorted(set(columns) - set(PREDICTION_COLUMNS))
    if unknown:
        raise ValueError(f"no prediction column(s) {unknown}; columns: {list(PREDICTION_COLUMNS)}")
    clauses, params = where(filters, "p.")
    if unscored_by is not None:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM metrics m WHERE m.prediction_id = p.id AND m.judge_version = ?)"
        )
        params.append(unscored_by)
    condition = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    # A store of an older schema opened read-only is not migrated: its missing columns read as NULL
    # (the repeat index as 0: it had one fit per key).
    selected = column_list(conn, "predictions", columns, "p.")
    return conn.execute(f"SELECT {selected} FROM predictions p{condition} ORDER BY p.id", params).fetchall()


def trajectory_rows(conn: sqlite3.Connection, filters: Mapping[str, Any]) -> list[tuple]:
    """Trajectory steps (``TRAJECTORY_COLUMNS``) of the selected predictions, ordered by
    prediction and step; ``prediction_id=`` selects predictions by id."""
    filters = dict(filters)
    ids = filters.pop("prediction_id", None)
    if ids is not None:
        filters["id"] = ids
    clauses, params = where(filters)
    condition = (
        f" WHERE t.prediction_id IN (SELECT id FROM predictions WHERE {' AND '.join(clauses)})"
        if clauses
        else ""
    )
    return conn.execute(
        f"SELECT t.prediction_id, t.step, t.seconds, t.expression FROM trajectories t{condition} "
        "ORDER BY t.prediction_id, t.step",
        params,
    ).fetchall()


def metric_rows(conn: sqlite3.Connection, judge_version: str | None, filters: Mapping[str, Any]) -> list[tuple]:
    """Metrics rows (of one judge version, or all) joined with their prediction's key:
    ``METRIC_FRAME_COLUMNS`` and the metrics as JSON text, by prediction and judge version."""
    clauses, params = where(filters, "p.")
    if judge_version is not None:
        clauses.append("m.judge_version = ?")
        params.append(judge_version)
    condition = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    fixed = ["m.prediction_id", "m.judge_version", "p.campaign_id", column_list(conn, "predictions", KEY_COLUMNS, "p.")]
    fixed += ["p.provenance", "p.status", "m.created_at"]
    return conn.execute(
        f"SELECT {', '.join(fixed)}, m.metrics FROM metrics m JOIN predictions p ON p.id = m.prediction_id"
        f"{condition} ORDER BY m.prediction_id, m.judge_version",
        params,
    ).fetchall()


def campaign_rows(conn: sqlite3.Connection) -> list[tuple]:
    """Every campaign (``CAMPAIGN_COLUMNS``), oldest first, its config decoded (a column newer
    than the store: None)."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(campaigns)")}
    columns = ", ".join(c if c in present else f"NULL AS {c}" for c in CAMPAIGN_COLUMNS)
    config = CAMPAIGN_COLUMNS.index("config")
    return [
        (*row[:config], loads(row[config]), *row[config + 1 :])
        for row in conn.execute(f"SELECT {columns} FROM campaigns ORDER BY id")
    ]
