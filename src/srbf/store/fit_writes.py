"""How fits become rows in the store: the ``predictions`` and ``trajectories`` inserts.

A fit's values are checked and laid out by ``rows`` before anything is written; here they are
inserted, inside the caller's transaction. A key already stored is never written twice: its
stored prediction's id is returned with the duplicate, for the caller to warn about.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from srbf.core import TaskKey
from srbf.store.errors import StoreError
from srbf.store.rows import Fit
from srbf.store.schema import KEY_COLUMNS

__all__ = ["insert_fits"]

_INSERT_PREDICTION = f"""
INSERT INTO predictions (campaign_id, {", ".join(KEY_COLUMNS)}, provenance, status, expression, error,
    wall_seconds, cpu_seconds, method_seconds, data_hash, internals, stderr_tail, created_at, inputs_hash,
    peak_memory_bytes, from_trajectory)
VALUES ({", ".join("?" * (len(KEY_COLUMNS) + 15))})
ON CONFLICT ({", ".join(KEY_COLUMNS)}) DO NOTHING
"""
_SELECT_BY_KEY = f"SELECT id FROM predictions WHERE {' AND '.join(f'{c} = ?' for c in KEY_COLUMNS)}"
_INSERT_STEP = "INSERT INTO trajectories (prediction_id, step, seconds, expression) VALUES (?, ?, ?, ?)"


def insert_fits(conn: sqlite3.Connection, path: Path, fits: Sequence[Fit], rows: Sequence[tuple],
                doing: str) -> tuple[list[int], list[tuple[TaskKey, int]]]:  # fmt: skip
    """Insert ``fits`` (``rows``: their ``rows.fit_rows``) and every fit's trajectory steps in one
    statement; return their prediction ids in order and the (key, stored id) of those already
    stored, which were not written. A campaign id the store does not hold is a StoreError."""
    ids: list[int] = []
    duplicates: list[tuple[TaskKey, int]] = []
    trajectories: list[tuple] = []
    provenance_of: dict[int, str] = {}
    for fit, (values, row, steps) in zip(fits, rows):
        if fit.campaign_id not in provenance_of:
            campaign = conn.execute("SELECT provenance FROM campaigns WHERE id = ?", (fit.campaign_id,)).fetchone()
            if campaign is None:
                raise StoreError(f"results store {path}: no campaign {fit.campaign_id} ({doing})")
            provenance_of[fit.campaign_id] = campaign[0]
        cursor = conn.execute(
            _INSERT_PREDICTION, (fit.campaign_id, *values, fit.provenance or provenance_of[fit.campaign_id], *row)
        )
        if cursor.rowcount == 0:
            existing = int(conn.execute(_SELECT_BY_KEY, values).fetchone()[0])
            duplicates.append((fit.key, existing))
            ids.append(existing)
            continue
        prediction_id = int(cursor.lastrowid)
        trajectories.extend((prediction_id, *step) for step in steps)
        ids.append(prediction_id)
    conn.executemany(_INSERT_STEP, trajectories)
    return ids, duplicates
