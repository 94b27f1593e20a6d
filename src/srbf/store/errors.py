"""The store's errors: one line that names the store file and what was being written.

SQLite reports trouble with terse codes ("attempt to write a readonly database", "database or disk
is full"). ``translate`` turns them into a ``StoreError`` that says which file, what srbf was
doing and what to do about it. Every write runs in a transaction, so a failed write leaves nothing
half-written: the message says so where it matters (a full disk).
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from srbf.core import SrbfError


class StoreError(SrbfError):
    """A results store cannot be opened, read or written; the message names the file."""


class DuplicateKeyWarning(UserWarning):
    """A record whose key is already stored was not written a second time."""


def _sqlite_code(exc: BaseException) -> str:
    return getattr(exc, "sqlite_errorname", "") or ""


def translate(exc: BaseException, path: Path, doing: str) -> StoreError:
    """The ``StoreError`` for ``exc``, raised by SQLite or the OS while ``doing`` on ``path``."""
    code = _sqlite_code(exc)
    detail = str(exc)
    os_errno = getattr(exc, "errno", None)
    if code.startswith("SQLITE_READONLY") or os_errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return StoreError(
            f"results store {path}: cannot write ({doing}): the file or its directory is read-only "
            f"({detail}); choose a writable results directory"
        )
    if code.startswith("SQLITE_CANTOPEN"):
        return StoreError(
            f"results store {path}: cannot open ({doing}): the file or its directory is missing, "
            f"read-only or not accessible ({detail})"
        )
    if code.startswith("SQLITE_FULL") or os_errno == errno.ENOSPC:
        return StoreError(
            f"results store {path}: the disk is full ({doing}); that write was rolled back and every "
            f"earlier record is intact: free space and rerun to resume"
        )
    if code.startswith("SQLITE_NOTADB"):
        return StoreError(f"results store {path}: not an SQLite file ({detail})")
    if code.startswith("SQLITE_BUSY"):
        return StoreError(
            f"results store {path}: still locked after waiting ({doing}): another process holds a "
            f"write lock on it (only one run may write a store at a time)"
        )
    return StoreError(f"results store {path}: {doing} failed: {detail}")


def is_store_failure(exc: BaseException) -> bool:
    """True for errors of the file or the database engine, false for bad input (bugs)."""
    return isinstance(exc, (sqlite3.OperationalError, sqlite3.DatabaseError, OSError)) and not isinstance(
        exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)
    )
