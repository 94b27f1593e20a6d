"""The ``shard`` table: what a shard store says about itself, and the claim a shard run makes on it.

A store made by ``srbf run --shard K/N`` holds one row (``ShardInfo``); a whole run's store, and a
merged one, hold none. A run claims its store before its first fit: a new store takes the shard's
row and the run's shared secret; a store that already belongs to this shard is resumed; anything
else (another shard's, another run's, a whole run's, a different secret) is refused with a
``StoreError`` naming the store, so two shards can never end up in one store.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from srbf.store.errors import StoreError

__all__ = ["ShardInfo", "claim_shard", "read_secret", "read_shard"]


@dataclass(frozen=True)
class ShardInfo:
    """Shard ``k`` of ``n`` of the run whose whole plan has digest ``plan_digest``; its share is
    ``planned`` fits."""

    k: int
    n: int
    plan_digest: str
    planned: int

    @property
    def label(self) -> str:
        return f"{self.k}/{self.n}"


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def read_shard(conn: sqlite3.Connection) -> ShardInfo | None:
    """The store's shard row, or None for a whole run's store (or one older than shards)."""
    if not _has_table(conn, "shard"):
        return None
    row = conn.execute("SELECT k, n, plan_digest, planned FROM shard WHERE id = 1").fetchone()
    return None if row is None else ShardInfo(int(row[0]), int(row[1]), str(row[2]), int(row[3]))


def read_secret(conn: sqlite3.Connection) -> bytes | None:
    """The store's secret, or None if it has none yet."""
    if not _has_table(conn, "secret"):
        return None
    row = conn.execute("SELECT value FROM secret WHERE id = 1").fetchone()
    return None if row is None else bytes(row[0])


def claim_shard(conn: sqlite3.Connection, path: Path, info: ShardInfo | None, secret: bytes | None) -> None:
    """Inside the caller's write transaction: make the store at ``path`` shard ``info`` of a run with
    ``secret``, or check that it already is. ``info=None`` checks that the store is not a shard."""
    held = read_shard(conn)
    if info is None:
        if held is not None:
            raise StoreError(
                f"results store {path}: holds shard {held.label} of a sharded run; run it with --shard "
                f"{held.label}, or merge the shards (srbf merge) and use the merged store"
            )
        return
    stored = conn.execute("SELECT count(*) FROM predictions").fetchone()[0]
    if held is None and stored:
        raise StoreError(
            f"results store {path}: holds {stored} fit(s) of an unsharded run; give shard {info.label} its own --results"
        )
    if held is not None and (held.k, held.n) != (info.k, info.n):
        raise StoreError(f"results store {path}: holds shard {held.label}, not {info.label}; give each shard its own --results")
    if held is not None and held.plan_digest != info.plan_digest:
        raise StoreError(
            f"results store {path}: holds shard {held.label} of a different run (its plan differs: another "
            "config, catalog version, --limit or --sweep-filter); give this run its own --results"
        )
    have = read_secret(conn)
    if have is not None and secret is not None and have != secret:
        raise StoreError(
            f"results store {path}: its run secret differs from the secret file's; the shards of one run "
            "must share one secret file (--secret-file)"
        )
    if have is None and secret is not None:
        conn.execute("INSERT INTO secret (id, value) VALUES (1, ?)", (secret,))
    if held is None:
        conn.execute(
            "INSERT INTO shard (id, k, n, plan_digest, planned) VALUES (1, ?, ?, ?, ?)",
            (info.k, info.n, info.plan_digest, info.planned),
        )
