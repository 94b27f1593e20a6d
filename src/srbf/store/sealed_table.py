"""The ``sealed`` table: a sealed run's seed, kept in its store until the run is complete.

A run with ``seed: sealed`` (``srbf.runs.sealed``) draws its points with a seed nobody outside
the store knows. The store keeps it in one row, with whether the run is complete: readers that
publish (``export``) withhold the seed column until it is; ``srbf status --reveal-seed`` shows it
to whoever holds the store. A store of a public seed has no row. Not versioned, like the secret:
every writer creates the table if it is missing, and older srbf ignore it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from srbf.store.errors import StoreError

__all__ = ["SealedSeed", "claim_sealed", "mark_complete", "read_sealed"]


@dataclass(frozen=True)
class SealedSeed:
    """A sealed run's seed and whether every fit of its plan is stored (then it may be published)."""

    seed: int
    complete: bool


def read_sealed(conn: sqlite3.Connection) -> SealedSeed | None:
    """The store's sealed seed, or None for a run of a public seed (or a store older than sealing)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sealed'").fetchone() is None:
        return None
    row = conn.execute("SELECT seed, complete FROM sealed WHERE id = 1").fetchone()
    if row is None:
        return None
    if not isinstance(row[0], int) or row[1] not in (0, 1):
        raise StoreError(f"table sealed, row 1: seed {row[0]!r} / complete {row[1]!r} are not an integer and 0 or 1")
    return SealedSeed(int(row[0]), bool(row[1]))


def claim_sealed(conn: sqlite3.Connection, path: Path, seed: int | None) -> None:
    """Inside the caller's write transaction: record that the store's run is sealed with ``seed``
    (or check that it is); ``seed=None`` checks that it is not. A store holds one run: a sealed run
    in a store of public fits, or a public one in a sealed store, is refused."""
    held = read_sealed(conn)
    if seed is None:
        if held is not None:
            raise StoreError(f"results store {path}: holds a sealed run; resume it with seed: sealed (or srbf run "
                             "--sealed), or give this run its own --results")
        return
    if held is None:
        stored = conn.execute("SELECT count(*) FROM predictions").fetchone()[0]
        if stored:
            raise StoreError(f"results store {path}: holds {stored} fit(s) of a public seed; give a sealed run its "
                             "own --results")
        conn.execute("INSERT INTO sealed (id, seed, complete) VALUES (1, ?, 0)", (seed,))
    elif held.seed != seed:
        raise StoreError(f"results store {path}: sealed under another seed (another run secret); give this run its "
                         "own --results")


def mark_complete(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: the sealed run's fits are all stored; its seed may be published."""
    conn.execute("UPDATE sealed SET complete = 1 WHERE id = 1")
