"""Read the store's tables into pandas DataFrames, and export predictions to Parquet or CSV.

Every reader is one SELECT, so it sees one consistent snapshot even while a run is writing (WAL):
a prediction appears together with its whole trajectory or not at all. Numeric columns keep their
dtypes even when a frame is empty; SQL NULL reads as NaN in float columns and None elsewhere.
JSON columns (``internals``, metrics) are decoded unless asked not to.

Filters are keyword arguments naming a predictions column (``method``, ``catalog``,
``campaign_id``, ``config_hash``, ``status``, ...): ``None`` means no filter, a single value an
equality, a list or tuple any of its values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from srbf.store.jsontext import loads
from srbf.store.schema import KEY_COLUMNS, METHOD_STACK_COLUMNS, METRIC_FRAME_COLUMNS, column_list

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

_DTYPES = {
    "id": "int64",
    "campaign_id": "int64",
    "prediction_id": "int64",
    "catalog_version": "int64",
    "draw": "int64",
    "seed": "int64",
    "repeat": "int64",
    "step": "int64",
    "cpu_count": "Int64",
    "git_dirty": "boolean",
    "budget": "float64",
    "wall_seconds": "float64",
    "cpu_seconds": "float64",
    "method_seconds": "float64",
    "seconds": "float64",
}
FILTERABLE = frozenset(PREDICTION_COLUMNS) - {"internals", "stderr_tail", "error", "expression"}


def _where(filters: Mapping[str, Any], alias: str = "") -> tuple[list[str], list[Any]]:
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


def _frame(rows: list[tuple], columns: Iterable[str]) -> pd.DataFrame:
    columns = list(columns)
    frame = pd.DataFrame.from_records(rows, columns=columns)
    for column in columns:
        if column in _DTYPES:
            frame[column] = frame[column].astype(_DTYPES[column])
    return frame


def predictions(
    conn: sqlite3.Connection,
    filters: Mapping[str, Any],
    *,
    decode_json: bool = True,
    unscored_by: str | None = None,
) -> pd.DataFrame:
    """Predictions in insertion order; ``unscored_by``: only those without metrics of that judge."""
    clauses, params = _where(filters, "p.")
    if unscored_by is not None:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM metrics m WHERE m.prediction_id = p.id AND m.judge_version = ?)"
        )
        params.append(unscored_by)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    # A store of an older schema opened read-only is not migrated: its missing columns read as NULL
    # (the repeat index as 0: it had one fit per key).
    columns = column_list(conn, "predictions", PREDICTION_COLUMNS, "p.")
    rows = conn.execute(f"SELECT {columns} FROM predictions p{where} ORDER BY p.id", params).fetchall()
    frame = _frame(rows, PREDICTION_COLUMNS)
    if decode_json:
        frame["internals"] = pd.Series(
            [loads(text) for text in frame["internals"]], index=frame.index, dtype=object
        )
    return frame


SCORED_COLUMNS = (
    "id",
    "campaign_id",
    *KEY_COLUMNS,
    "provenance",
    "status",
    "expression",
    "wall_seconds",
    "cpu_seconds",
    "method_seconds",
)


def scored_predictions(
    conn: sqlite3.Connection, judge_version: str, filters: Mapping[str, Any], flag: str
) -> tuple[pd.DataFrame, list[str], int]:
    """What the long frame is made of, in one pass over the store: the selected predictions that
    have metrics of ``judge_version`` (in insertion order, the columns of ``SCORED_COLUMNS`` and
    ``flagged``: whether their internals hold the key ``flag``), their metrics as JSON texts (not
    decoded: the caller decodes them in one go), and how many predictions the filters select."""
    clauses, params = _where(filters, "p.")
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    total = conn.execute(f"SELECT count(*) FROM predictions p{where}", params).fetchone()[0]
    present = {row[1] for row in conn.execute("PRAGMA table_info(predictions)")}
    flagged = "instr(p.internals, ?) > 0" if "internals" in present else "0 AND ?"
    rows = conn.execute(
        f"SELECT {column_list(conn, 'predictions', SCORED_COLUMNS, 'p.')}, {flagged}, m.metrics "
        f"FROM predictions p JOIN metrics m ON m.prediction_id = p.id AND m.judge_version = ?{where} ORDER BY p.id",
        [f'"{flag}"', judge_version, *params],
    ).fetchall()
    texts = [row[-1] for row in rows]
    frame = _frame([row[:-1] for row in rows], (*SCORED_COLUMNS, "flagged"))
    frame["flagged"] = frame["flagged"].fillna(0).astype(bool)
    return frame, texts, total


def trajectories(conn: sqlite3.Connection, filters: Mapping[str, Any]) -> pd.DataFrame:
    """Trajectory steps of the selected predictions, ordered by prediction and step."""
    filters = dict(filters)
    ids = filters.pop("prediction_id", None)
    if ids is not None:
        filters["id"] = ids
    clauses, params = _where(filters)
    where = (
        f" WHERE t.prediction_id IN (SELECT id FROM predictions WHERE {' AND '.join(clauses)})"
        if clauses
        else ""
    )
    rows = conn.execute(
        f"SELECT t.prediction_id, t.step, t.seconds, t.expression FROM trajectories t{where} "
        "ORDER BY t.prediction_id, t.step",
        params,
    ).fetchall()
    return _frame(rows, TRAJECTORY_COLUMNS)


def metrics(
    conn: sqlite3.Connection, judge_version: str | None, filters: Mapping[str, Any], *, expand: bool = True
) -> pd.DataFrame:
    """Metrics joined with their prediction's key; one column per metric when ``expand``."""
    clauses, params = _where(filters, "p.")
    if judge_version is not None:
        clauses.append("m.judge_version = ?")
        params.append(judge_version)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    fixed = ["m.prediction_id", "m.judge_version", "p.campaign_id", column_list(conn, "predictions", KEY_COLUMNS, "p.")]
    fixed += ["p.provenance", "p.status", "m.created_at"]
    rows = conn.execute(
        f"SELECT {', '.join(fixed)}, m.metrics FROM metrics m JOIN predictions p ON p.id = m.prediction_id"
        f"{where} ORDER BY m.prediction_id, m.judge_version",
        params,
    ).fetchall()
    frame = _frame(rows, (*METRIC_FRAME_COLUMNS, "metrics"))
    decoded = [loads(text) for text in frame.pop("metrics")]
    if not expand:
        frame["metrics"] = pd.Series(decoded, index=frame.index, dtype=object)
        return frame
    values = (
        pd.DataFrame.from_records(decoded, index=frame.index) if decoded else pd.DataFrame(index=frame.index)
    )
    return pd.concat([frame, values], axis=1)


def campaigns(conn: sqlite3.Connection) -> pd.DataFrame:
    """Every campaign, oldest first, with its config decoded (a column newer than the store: None)."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(campaigns)")}
    columns = ", ".join(c if c in present else f"NULL AS {c}" for c in CAMPAIGN_COLUMNS)
    rows = conn.execute(f"SELECT {columns} FROM campaigns ORDER BY id").fetchall()
    frame = _frame(rows, CAMPAIGN_COLUMNS)
    frame["config"] = pd.Series([loads(text) for text in frame["config"]], index=frame.index, dtype=object)
    return frame


def export_predictions(
    conn: sqlite3.Connection, path: Path, format: str | None, filters: Mapping[str, Any],
    judge_version: str | None = None,
) -> Path:
    """Write the selected predictions to ``path`` (internals stay JSON text); return the path.
    With ``judge_version``, each row also carries that judge's metrics, one column per metric
    (empty for a prediction it has not scored)."""
    if format is None:
        suffix = path.suffix.lower()
        format = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}.get(suffix)
        if format is None:
            raise ValueError(f"cannot tell the export format of {path}: pass format='parquet' or 'csv'")
    if format not in ("parquet", "csv"):
        raise ValueError(f"export format {format!r} is not 'parquet' or 'csv'")
    frame = predictions(conn, filters, decode_json=False)
    if judge_version is not None:
        frame = with_metrics(conn, frame, judge_version, filters)
    path.parent.mkdir(parents=True, exist_ok=True)
    if format == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False, engine="pyarrow")
    return path


def with_metrics(conn: sqlite3.Connection, frame: pd.DataFrame, judge_version: str,
                 filters: Mapping[str, Any]) -> pd.DataFrame:  # fmt: skip
    """``frame`` (predictions) with a ``judge_version`` column and one column per metric."""
    scored = metrics(conn, judge_version, filters)
    values = scored.drop(columns=[c for c in METRIC_FRAME_COLUMNS if c != "prediction_id"])
    clash = sorted(set(values.columns) & set(frame.columns))
    if clash:
        raise ValueError(f"metric(s) {clash} are named like prediction columns; export them with metrics_frame()")
    out = frame.merge(values, how="left", left_on="id", right_on="prediction_id").drop(columns="prediction_id")
    out.insert(len(frame.columns), "judge_version", [judge_version if i in set(scored["prediction_id"]) else None
                                                     for i in out["id"]])  # fmt: skip
    return out
