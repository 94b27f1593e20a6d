"""Opening a store file: where it is, the writer's and the readers' connections, transactions.

The writer's connection puts the file in WAL mode (kept in the file, so readers inherit it), syncs
every commit to disk (``synchronous = FULL``: a commit survives a power cut, not only a kill) and
enforces foreign keys. Readers open the file with ``mode=ro``. Both wait up to
``BUSY_TIMEOUT_SECONDS`` for a lock instead of failing: in WAL mode readers and the writer do not
block each other, but a checkpoint or a reader opening mid-recovery can hold a lock for an instant.
WAL needs a local filesystem (not NFS/SMB), as SQLite's locking does anyway.

Both connections are in autocommit mode (``isolation_level=None``): a read is its own snapshot
and holds no lock afterwards, and every write goes through ``transaction``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from srbf.core import DEFAULT_RESULTS
from srbf.store.errors import StoreError, is_store_failure, translate
from srbf.store.schema import check_header, create_or_migrate

DEFAULT_ROOT = Path(DEFAULT_RESULTS)
STORE_FILENAME = "srbf.sqlite"
BUSY_TIMEOUT_SECONDS = 60.0
_FILE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def resolve_path(root_or_file: str | Path | None) -> Path:
    """The store file for a results root: ``<dir>/srbf.sqlite``, or the file itself if named.

    ``None`` means ``./srbf-results``. A path is taken as the file when it is an existing file or
    ends in .sqlite, .sqlite3 or .db; otherwise it is the results directory.
    """
    path = Path(DEFAULT_ROOT if root_or_file is None else root_or_file).expanduser()
    if path.is_dir():
        return path / STORE_FILENAME
    if path.exists() or path.suffix.lower() in _FILE_SUFFIXES:
        return path
    return path / STORE_FILENAME


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path, doing: str) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT; on any error roll back, so nothing is ever half-written."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite may already have rolled back (e.g. on a full disk)
        if is_store_failure(exc):
            raise translate(exc, path, doing) from exc
        raise


def _connect(target: str | Path, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(target, uri=uri, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    return conn


def open_writer(path: Path) -> sqlite3.Connection:
    """The driver's connection: create directory, file and tables as needed; prove it writable."""
    doing = "opening the store for writing"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise translate(exc, path, "creating its directory") from exc
    conn = None
    try:
        conn = _connect(path)
        check_header(conn, path)  # before anything is changed in a file that is not ours
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"results store {path}: cannot switch to WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = FULL")
        with transaction(conn, path, doing):  # foreign keys still off: a migration may rebuild a table
            create_or_migrate(conn, path)
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException as exc:
        if conn is not None:
            conn.close()
        if is_store_failure(exc):
            raise translate(exc, path, doing) from exc
        raise
    return conn


def _open_existing(path: Path, uri: str) -> sqlite3.Connection:
    conn = _connect(uri, uri=True)
    try:
        if check_header(conn, path) == 0:
            raise StoreError(f"results store {path}: empty file, not an srbf results store")
    except BaseException:
        conn.close()
        raise
    return conn


def open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to an existing store, also where the file or directory is read-only."""
    doing = "opening the store for reading"
    if not path.is_file():
        raise StoreError(f"results store {path}: no such file (nothing recorded there yet?)")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        return _open_existing(path, uri)
    except sqlite3.Error as exc:
        wal = Path(f"{path}-wal")
        unwritable = getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN"))
        if not unwritable or (wal.exists() and wal.stat().st_size > 0):
            raise translate(exc, path, doing) from exc
    # A store in a read-only place with no write-ahead log: nobody can be writing it, so it is
    # safe to read as immutable (SQLite then needs no shared-memory file beside it).
    try:
        return _open_existing(path, uri + "&immutable=1")
    except sqlite3.Error as exc:
        raise translate(exc, path, doing) from exc
