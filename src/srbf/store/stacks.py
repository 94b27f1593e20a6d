"""The stack behind every result: storing it, reading it back, and the compact table of it.

A result is only reproducible if the software that produced it can be rebuilt, and a judge whose
NumPy or SymPy changed can change a score. So each campaign row (one method variant of one run;
every prediction points to its campaign) carries srbf's version and git commit, the Python of the
driver, and the method's own stack as its interpreter saw it (``METHOD_STACK_COLUMNS``). Each
metrics row points to a ``judge_stacks`` row: the judge version with the Python, NumPy, SciPy,
SymPy and mpmath that scored it (``JUDGE_STACK_COLUMNS``). Unknown values are NULL: stores
written before schema 3, methods whose package srbf cannot name.

``stack_frame`` reads one row per method and distinct stack, ``stack_table`` turns it into the
rows ``srbf status`` and the report print.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from srbf.store.schema import JUDGE_STACK_COLUMNS, METHOD_STACK_COLUMNS

if TYPE_CHECKING:  # pandas is imported by the readers only, not by the driver that writes
    import pandas as pd

RUN_STACK_COLUMNS = ("srbf_version", "git_commit", "git_dirty", "python_version", *METHOD_STACK_COLUMNS)
JUDGE_FRAME_COLUMNS = tuple(f"judge_{column}" for column in JUDGE_STACK_COLUMNS)  # judge_python_version, ...
STACK_FRAME_COLUMNS = ("method", *RUN_STACK_COLUMNS, "judge_version", *JUDGE_FRAME_COLUMNS, "fits", "scored")
STACK_HEADER = ("method", "fits", "srbf", "python", "package", "numpy", "scipy", "lock", "judge")
_MISSING = "?"  # a value the store does not know


# -- writing --------------------------------------------------------------------------------------


def stack_values(stack: Mapping[str, Any] | None, columns: Sequence[str], what: str) -> tuple:
    """The values of a stack record in ``columns`` order (text or None); unknown keys are refused."""
    stack = dict(stack or {})
    unknown = sorted(set(stack) - set(columns))
    if unknown:
        raise ValueError(f"{what}: unknown field(s) {', '.join(unknown)}; fields: {', '.join(columns)}")
    values = tuple(stack.get(column) for column in columns)
    for column, value in zip(columns, values):
        if not isinstance(value, (str, type(None))):
            raise TypeError(f"{what}: {column} must be text or None, got {value!r}")
    return values


def judge_stack_id(conn: sqlite3.Connection, judge_version: str, values: tuple) -> int | None:
    """The id of the judge_stacks row of ``judge_version`` and library ``values``, added if new
    (inside the caller's transaction); None when every value is unknown."""
    if all(value is None for value in values):
        return None
    if any(value is None for value in values):
        raise ValueError(f"a judge stack needs every one of {', '.join(JUDGE_STACK_COLUMNS)}, got {values!r}")
    columns = ("judge_version", *JUDGE_STACK_COLUMNS)
    where = " AND ".join(f"{column} = ?" for column in columns)
    found = conn.execute(f"SELECT id FROM judge_stacks WHERE {where}", (judge_version, *values)).fetchone()
    if found is not None:
        return int(found[0])
    cursor = conn.execute(
        f"INSERT INTO judge_stacks ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        (judge_version, *values),
    )
    return int(cursor.lastrowid)


# -- reading --------------------------------------------------------------------------------------


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _judge_select(conn: sqlite3.Connection) -> tuple[str, str]:
    """The judge stack's select list and join, or NULLs in a store older than schema 3 (read-only)."""
    if "judge_stack_id" not in _columns(conn, "metrics"):
        return ", ".join(f"NULL AS {c}" for c in JUDGE_STACK_COLUMNS), ""
    return ", ".join(f"s.{c}" for c in JUDGE_STACK_COLUMNS), " LEFT JOIN judge_stacks s ON s.id = m.judge_stack_id"


METRIC_STACK_COLUMNS = ("prediction_id", "judge_version", *JUDGE_STACK_COLUMNS)


def metric_stack_rows(conn: sqlite3.Connection, judge_version: str | None) -> list[tuple]:
    """Per metrics row (of one judge version, or all), by prediction: ``METRIC_STACK_COLUMNS``,
    the prediction, judge version and libraries that scored it (None where the store does not know)."""
    select, join = _judge_select(conn)
    where, params = ("", []) if judge_version is None else (" WHERE m.judge_version = ?", [judge_version])
    return conn.execute(
        f"SELECT m.prediction_id, m.judge_version, {select} FROM metrics m{join}{where} ORDER BY m.prediction_id",
        params,
    ).fetchall()


def metric_stacks(conn: sqlite3.Connection, judge_version: str | None) -> pd.DataFrame:
    """``metric_stack_rows`` as a DataFrame."""
    import pandas as pd

    frame = pd.DataFrame.from_records(metric_stack_rows(conn, judge_version), columns=list(METRIC_STACK_COLUMNS))
    frame["prediction_id"] = frame["prediction_id"].astype("int64")
    return frame


def stack_frame(conn: sqlite3.Connection, filters: Mapping[str, Any]) -> pd.DataFrame:
    """One row per method, run stack and judge stack: ``fits``, the predictions of that method and
    run stack, and ``scored``, how many of them that judge stack scored (a method and run stack with
    nothing scored has one row, its judge columns None and ``scored`` 0).

    ``filters`` select predictions as in ``frames`` (``method=``, ``config_hash=``, ...)."""
    import pandas as pd

    from srbf.store.row_readers import where

    clauses, params = where(filters, "p.")
    present = _columns(conn, "campaigns")
    run = ", ".join(f"c.{c}" if c in present else f"NULL AS {c}" for c in RUN_STACK_COLUMNS)
    judge, join = _judge_select(conn)
    source = "predictions p JOIN campaigns c ON c.id = p.campaign_id"
    condition = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    n_run = 1 + len(RUN_STACK_COLUMNS)
    by_run = ", ".join(str(i) for i in range(1, n_run + 1))
    by_judge = ", ".join(str(i) for i in range(1, n_run + 2 + len(JUDGE_STACK_COLUMNS)))
    counted = conn.execute(f"SELECT p.method, {run}, count(*) FROM {source}{condition} GROUP BY {by_run}", list(params))
    fits = {row[:-1]: row[-1] for row in counted}
    scored = conn.execute(
        f"SELECT p.method, {run}, m.judge_version, {judge}, count(*) FROM {source}"
        f" JOIN metrics m ON m.prediction_id = p.id{join}{condition} GROUP BY {by_judge}",
        list(params),
    ).fetchall()
    rows = [(*row[:-1], fits[row[:n_run]], row[-1]) for row in scored]
    judged = {row[:n_run] for row in scored}
    rows += [(*key, *[None] * (1 + len(JUDGE_STACK_COLUMNS)), n, 0) for key, n in fits.items() if key not in judged]
    frame = pd.DataFrame.from_records(sorted(rows, key=lambda r: tuple(map(str, r))), columns=list(STACK_FRAME_COLUMNS))
    return frame.astype({"fits": "int64", "scored": "int64"})


# -- the compact table ----------------------------------------------------------------------------


def _text(value: Any) -> str:
    return _MISSING if value is None else str(value)


def _srbf(row: Mapping[str, Any]) -> str:
    commit = row["git_commit"]
    if commit is None:
        return _text(row["srbf_version"])
    return f"{_text(row['srbf_version'])} {str(commit)[:10]}{' dirty' if row['git_dirty'] else ''}"


def _python(row: Mapping[str, Any]) -> str:
    """The driver's Python, and the method's when it differs (``3.11.9 / 3.12.1``)."""
    mine, theirs = _text(row["python_version"]), _text(row["method_python_version"])
    return mine if mine == theirs else f"{mine} / {theirs}"


def _package(row: Mapping[str, Any]) -> str:
    name, version = row["method_package"], row["method_package_version"]
    if name is None:
        return _MISSING
    return f"{name} {_text(version)}"


def _judge_text(version: str, libraries: Sequence[Any]) -> str:
    """``judge 1.0: python 3.11.9, numpy 2.1.3, ...`` (libraries unknown: scored before schema 3)."""
    if all(value is None for value in libraries):
        return f"judge {version}: libraries not recorded"
    named = (f"{column.removesuffix('_version')} {_text(value)}" for column, value in zip(JUDGE_STACK_COLUMNS, libraries))
    return f"judge {version}: " + ", ".join(named)


def stack_table(frame: pd.DataFrame) -> tuple[list[tuple[str, ...]], list[str]]:
    """The rows (``STACK_HEADER``) of ``frame`` (``stack_frame``): one per method and run stack, the
    judge column naming its judge stacks by number; and the numbered judge stacks, one line each."""
    groups: dict[tuple, list[dict]] = {}
    for record in frame.astype(object).where(frame.notna(), None).to_dict("records"):
        groups.setdefault(tuple(record[c] for c in ("method", *RUN_STACK_COLUMNS)), []).append(record)
    judges: dict[str, int] = {}
    rows: list[tuple[str, ...]] = []
    for records in groups.values():
        first = records[0]
        labels = []
        for record in records:
            if record["judge_version"] is not None:
                text = _judge_text(record["judge_version"], [record[c] for c in JUDGE_FRAME_COLUMNS])
                labels.append(f"{record['judge_version']} #{judges.setdefault(text, len(judges) + 1)}")
        rows.append((
            str(first["method"]),
            str(first["fits"]),
            _srbf(first),
            _python(first),
            _package(first),
            _text(first["method_numpy_version"]),
            _text(first["method_scipy_version"]),
            _text(first["method_lock_hash"]).removeprefix("sha256:")[:12],  # enough to tell locks apart
            ", ".join(dict.fromkeys(labels)) or "not scored",
        ))  # fmt: skip
    return rows, [f"#{number} {text}" for text, number in judges.items()]


def stack_lines(frame: pd.DataFrame) -> list[str]:
    """``stack_table`` as aligned lines for a terminal, its judge stacks below (none if empty)."""
    rows, legend = stack_table(frame)
    if not rows:
        return []
    table = [STACK_HEADER, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(STACK_HEADER))]
    lines = ["  ".join(cell.rjust(w) if i == 1 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in table]  # fmt: skip
    return lines + legend
