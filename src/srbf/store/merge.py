"""Merge the shard stores of one run (``srbf run --shard K/N``) into one store, after checking them.

The shards must belong together: one split (the same N), the same plan (``plan_digest``: the same
config hashes, catalog versions, seed, limit and filters) and the same run secret. None may be
given twice, none may hold more fits than its share, and no fit may be stored in two of them.
Unless ``allow_partial``, every shard 1..N must be there and complete (as many fits stored as its
share holds); with it, what exists is merged and the report lists what is missing, so a later
``srbf status`` of the merged store shows it pending.

Nothing that can be recomputed is taken on trust (docs/cluster.md, "Trust"): metrics are never
merged (the merged store is scored again: ``srbf merge`` does it), and ``check``, given by the
caller (``srbf.runs.merge_check``: this layer knows no catalogs), re-derives every row's seed
and re-draws its points before anything is copied. A sealed run's seed row goes along, complete
only when every shard is there and complete.

The copy is SQLite to SQLite (each shard attached in turn, its rows inserted with their ids
shifted past those already merged), into a file beside the output that takes its name only when
every shard is in: a failed merge leaves no output behind.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from srbf.store.cells import check_cells
from srbf.store.connection import open_reader, open_writer, resolve_path, transaction
from srbf.store.errors import StoreError, translate
from srbf.store.schema import KEY_COLUMNS, SCHEMA_VERSION
from srbf.store.sealed_table import SealedSeed, read_sealed
from srbf.store.shard_table import ShardInfo, read_secret, read_shard

__all__ = ["MergeError", "MergeReport", "merge_stores"]

# Tables in the order they are copied (a row's references are copied before it); ids shifted.
# Metrics are not among them: the merged store is scored again.
_SHIFTED = {
    "campaigns": {"id": "campaigns"},
    "predictions": {"id": "predictions", "campaign_id": "campaigns"},
    "trajectories": {"prediction_id": "predictions"},
}


class MergeError(StoreError):
    """Shards that cannot be merged (of different runs, missing, given twice, overlapping); one line."""


@dataclass
class _Shard:
    path: Path
    info: ShardInfo
    secret: bytes | None
    stored: int
    config_hashes: tuple[str, ...]
    catalogs: tuple[tuple[str, int], ...]
    sealed: SealedSeed | None = None


@dataclass
class MergeReport:
    """What ``merge_stores`` did: the merged store, the shards merged (by label), the fits copied,
    and for a partial merge the shards missing and those incomplete (label, stored, planned)."""

    output: Path
    merged: list[str]
    predictions: int
    missing: list[str] = field(default_factory=list)
    incomplete: list[tuple[str, int, int]] = field(default_factory=list)


def _read_shard(root: str | Path) -> _Shard:
    path = resolve_path(root)
    conn = open_reader(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise MergeError(f"{path}: store schema {version}, not {SCHEMA_VERSION}: run it with this srbf first")
        check_cells(conn, path)
        info = read_shard(conn)
        if info is None:
            raise MergeError(f"{path}: not a shard store (its run had no --shard K/N)")
        stored = conn.execute("SELECT count(*) FROM predictions").fetchone()[0]
        hashes = tuple(r[0] for r in conn.execute("SELECT DISTINCT config_hash FROM campaigns ORDER BY 1"))
        catalogs = tuple(
            (str(r[0]), int(r[1]))
            for r in conn.execute("SELECT DISTINCT catalog, catalog_version FROM predictions ORDER BY 1, 2")
        )
        return _Shard(path, info, read_secret(conn), int(stored), hashes, catalogs, read_sealed(conn))
    except sqlite3.DatabaseError as exc:
        raise translate(exc, path, "reading it as a shard") from exc
    finally:
        conn.close()


def _check_together(shards: Sequence[_Shard]) -> None:
    """Every shard of one split, of one run, under one secret, none given twice."""
    first = shards[0]
    seen: dict[int, Path] = {}
    for shard in shards:
        where = f"{shard.path} (shard {shard.info.label}) and {first.path} (shard {first.info.label})"
        if shard.info.n != first.info.n:
            raise MergeError(f"{where}: split in {shard.info.n} and {first.info.n} shards: not one run")
        if shard.info.plan_digest != first.info.plan_digest:
            if shard.config_hashes != first.config_hashes and shard.config_hashes and first.config_hashes:
                why = f"different configs (config hashes {', '.join(shard.config_hashes)} vs {', '.join(first.config_hashes)})"
            elif _versions_differ(shard.catalogs, first.catalogs):
                why = "different catalog versions"
            else:
                why = "different plans (another config, seed, --limit or --sweep-filter)"
            raise MergeError(f"{where}: {why}: not one run")
        if shard.secret != first.secret:
            raise MergeError(f"{where}: different run secrets: the shards did not share one --secret-file")
        if (shard.sealed is None) != (first.sealed is None):
            raise MergeError(f"{where}: one run is sealed and the other is not: not one run")
        if shard.info.k in seen:
            raise MergeError(f"shard {shard.info.label} given twice: {seen[shard.info.k]} and {shard.path}")
        seen[shard.info.k] = shard.path


def _versions_differ(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...]) -> bool:
    va, vb = dict(a), dict(b)
    return any(va[name] != vb[name] for name in va.keys() & vb.keys())


def merge_stores(sources: Sequence[str | Path], output: str | Path, *, allow_partial: bool = False,
                 check: Callable[[Sequence[Path]], None] | None = None) -> MergeReport:
    """Check the shard stores ``sources`` and merge them into a new store at ``output`` (without
    metrics). ``check`` is called with the shards' store files, in shard order, once they are known
    to belong together and before anything is written; it raises (MergeError) to refuse them."""
    if not sources:
        raise MergeError("nothing to merge: name the shard stores")
    target = resolve_path(output)
    if target.exists():
        raise MergeError(f"{target}: already exists; merge into a new store")
    shards = sorted((_read_shard(s) for s in sources), key=lambda s: s.info.k)
    _check_together(shards)
    n = shards[0].info.n
    missing = [f"{k}/{n}" for k in sorted(set(range(1, n + 1)) - {s.info.k for s in shards})]
    incomplete = [(s.info.label, s.stored, s.info.planned) for s in shards if s.stored < s.info.planned]
    if not allow_partial and missing:
        raise MergeError(f"shard(s) {', '.join(missing)} missing; pass --allow-partial to merge the others")
    if not allow_partial and incomplete:
        label, stored, planned = incomplete[0]
        raise MergeError(
            f"shard {label} is incomplete ({stored} of {planned} fits stored): resume it with srbf run --shard "
            f"{label}, or pass --allow-partial"
        )
    if check is not None:  # names a row that disagrees with what it recomputes
        check([s.path for s in shards])
    for shard in shards:  # a row no check could fault, yet beyond the shard's share
        if shard.stored > shard.info.planned:
            raise MergeError(f"{shard.path} (shard {shard.info.label}): holds {shard.stored} fits, its share has "
                             f"{shard.info.planned}: {shard.stored - shard.info.planned} row(s) no run made")
    partial = target.with_name(target.name + ".merging")
    made_folder = not target.parent.exists()
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    conn = open_writer(partial)
    try:
        with transaction(conn, partial, "storing the run secret"):
            if shards[0].secret is not None:
                conn.execute("INSERT INTO secret (id, value) VALUES (1, ?)", (shards[0].secret,))
            if shards[0].sealed is not None:  # complete when the whole run is
                complete = not missing and not incomplete and all(s.sealed.complete for s in shards)
                conn.execute("INSERT INTO sealed (id, seed, complete) VALUES (1, ?, ?)",
                             (shards[0].sealed.seed, int(complete)))
        for shard in shards:
            _copy(conn, partial, shard)
        total = conn.execute("SELECT count(*) FROM predictions").fetchone()[0]
    except BaseException:
        conn.close()
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        if made_folder:
            target.parent.rmdir()
        raise
    conn.close()
    os.replace(partial, target)
    return MergeReport(target, [s.info.label for s in shards], int(total), missing, incomplete)


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]


def _copy(conn: sqlite3.Connection, path: Path, shard: _Shard) -> None:
    """Copy every row of ``shard`` into the store behind ``conn`` in one transaction; refuse a fit
    that is already there (stored by another shard)."""
    conn.execute("ATTACH DATABASE ? AS src", (str(shard.path),))
    try:
        with transaction(conn, path, f"merging {shard.path}"):
            keys = ", ".join(KEY_COLUMNS)
            twice = conn.execute(
                f"SELECT {keys} FROM src.predictions INTERSECT SELECT {keys} FROM main.predictions LIMIT 1"
            ).fetchone()
            if twice is not None:
                shown = ", ".join(f"{c}={v}" for c, v in zip(KEY_COLUMNS, twice))
                raise MergeError(f"{shard.path} (shard {shard.info.label}): fit {shown} is already in another shard")
            offset = {
                table: conn.execute(f"SELECT coalesce(max(id), 0) FROM main.{table}").fetchone()[0]
                for table in ("campaigns", "predictions")
            }
            for table, shifted in _SHIFTED.items():
                columns = _columns(conn, table)
                values = [f"{c} + {offset[shifted[c]]}" if c in shifted else c for c in columns]
                conn.execute(f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM src.{table}")
    finally:
        conn.execute("DETACH DATABASE src")
