"""Read the store's tables into pandas DataFrames, and export predictions to Parquet or CSV.

The rows come from ``row_readers`` (which the scoring pass reads without pandas). Every reader
is one SELECT, so it sees one consistent snapshot even while a run is writing (WAL): a prediction
appears together with its whole trajectory or not at all. Numeric columns keep their dtypes
even when a frame is empty; SQL NULL reads as NaN in float columns and None elsewhere.
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

from srbf.store.csv_cells import write_csv
from srbf.store.jsontext import loads
from srbf.store.row_readers import (
    CAMPAIGN_COLUMNS,
    PREDICTION_COLUMNS,
    TRAJECTORY_COLUMNS,
    campaign_rows,
    metric_rows,
    prediction_rows,
    trajectory_rows,
    where,
)
from srbf.store.schema import KEY_COLUMNS, METRIC_FRAME_COLUMNS, column_list

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
    "peak_memory_bytes": "Int64",
    "from_trajectory": "bool",
    "seconds": "float64",
}


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
    frame = _frame(prediction_rows(conn, filters, unscored_by=unscored_by), PREDICTION_COLUMNS)
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
    clauses, params = where(filters, "p.")
    condition = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    total = conn.execute(f"SELECT count(*) FROM predictions p{condition}", params).fetchone()[0]
    present = {row[1] for row in conn.execute("PRAGMA table_info(predictions)")}
    flagged = "instr(p.internals, ?) > 0" if "internals" in present else "0 AND ?"
    rows = conn.execute(
        f"SELECT {column_list(conn, 'predictions', SCORED_COLUMNS, 'p.')}, {flagged}, m.metrics "
        f"FROM predictions p JOIN metrics m ON m.prediction_id = p.id AND m.judge_version = ?{condition} ORDER BY p.id",
        [f'"{flag}"', judge_version, *params],
    ).fetchall()
    texts = [row[-1] for row in rows]
    frame = _frame([row[:-1] for row in rows], (*SCORED_COLUMNS, "flagged"))
    frame["flagged"] = frame["flagged"].fillna(0).astype(bool)
    return frame, texts, total


def trajectories(conn: sqlite3.Connection, filters: Mapping[str, Any]) -> pd.DataFrame:
    """Trajectory steps of the selected predictions, ordered by prediction and step."""
    return _frame(trajectory_rows(conn, filters), TRAJECTORY_COLUMNS)


def metrics(
    conn: sqlite3.Connection, judge_version: str | None, filters: Mapping[str, Any], *, expand: bool = True
) -> pd.DataFrame:
    """Metrics joined with their prediction's key; one column per metric when ``expand``."""
    rows = metric_rows(conn, judge_version, filters)
    frame = _frame([row[:-1] for row in rows], METRIC_FRAME_COLUMNS)
    decoded = [loads(row[-1]) for row in rows]
    if not expand:
        frame["metrics"] = pd.Series(decoded, index=frame.index, dtype=object)
        return frame
    values = (
        pd.DataFrame.from_records(decoded, index=frame.index) if decoded else pd.DataFrame(index=frame.index)
    )
    return pd.concat([frame, values], axis=1)


def campaigns(conn: sqlite3.Connection) -> pd.DataFrame:
    """Every campaign, oldest first, with its config decoded (a column newer than the store: None)."""
    return _frame(campaign_rows(conn), CAMPAIGN_COLUMNS)


def export_predictions(
    conn: sqlite3.Connection, path: Path, format: str | None, filters: Mapping[str, Any],
    judge_version: str | None = None, configs: Any = None, *, withhold_seed: bool = False,
) -> Path:
    """Write the selected predictions to ``path`` (internals stay JSON text); return the path.
    With ``judge_version``, each row also carries that judge's metrics, one column per metric
    (empty for a prediction it has not scored); ``configs`` (a ``configurations.Selection``)
    keeps the configurations it chose. ``withhold_seed`` empties the seed column (a sealed run
    not yet complete). CSV cells a spreadsheet would run are escaped (``csv_cells``)."""
    if format is None:
        suffix = path.suffix.lower()
        format = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}.get(suffix)
        if format is None:
            raise ValueError(f"cannot tell the export format of {path}: pass format='parquet' or 'csv'")
    if format not in ("parquet", "csv"):
        raise ValueError(f"export format {format!r} is not 'parquet' or 'csv'")
    frame = predictions(conn, filters, decode_json=False)
    if configs is not None:
        frame = configs.apply(frame).reset_index(drop=True)
    if judge_version is not None:
        frame = with_metrics(conn, frame, judge_version, filters)
    if withhold_seed:
        frame["seed"] = pd.array([pd.NA] * len(frame), dtype="Int64")
    path.parent.mkdir(parents=True, exist_ok=True)
    if format == "csv":
        write_csv(frame, path)
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
