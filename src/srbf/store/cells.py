"""Cells of the wrong type in a damaged store, found and named before anything reads them.

SQLite keeps whatever a cell is given: a store edited by hand, or damaged, can hold text in an
integer column (``draw = 'abc'``) where srbf's readers would fail deep inside pandas or a key
comparison, with a traceback. ``check_cells`` scans every table once, with one query per table
that compares each cell's storage class (``typeof``) with its column's declared type, and raises a
``StoreError`` of one line naming the table, the row and the column. ``ResultsStore`` runs it
before its first read; a store with no such cell costs one pass over its tables.

Allowed storage classes per declared type: INTEGER holds integers; REAL holds reals (and integers,
which SQLite may keep for whole numbers); TEXT holds text; BLOB holds blobs; any nullable column
also holds NULL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from srbf.store.errors import StoreError

__all__ = ["check_cells", "allowed_classes"]

_CLASSES = {"INTEGER": ("integer",), "REAL": ("real", "integer"), "TEXT": ("text",), "BLOB": ("blob",)}
_NAMES = {"integer": "an integer", "real": "a number", "text": "text", "blob": "bytes", "null": "empty (NULL)"}


def allowed_classes(declared: str, not_null: bool) -> tuple[str, ...]:
    """The storage classes a column of ``declared`` type may hold (() for a type srbf never declares)."""
    classes = _CLASSES.get(declared.upper(), ())
    return classes if not_null or not classes else (*classes, "null")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def check_cells(conn: sqlite3.Connection, path: Path) -> None:
    """StoreError naming the first cell (table, row, column) whose storage class its column's
    declared type does not allow; nothing when every cell fits."""
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        columns = [(r[1], allowed_classes(r[2], bool(r[3]) or bool(r[5])))
                   for r in conn.execute(f"PRAGMA table_info({_quoted(table)})")]
        checked = [(name, classes) for name, classes in columns if classes]
        if not checked:
            continue
        tests = [f"typeof({_quoted(name)}) NOT IN ({', '.join(repr(c) for c in classes)})" for name, classes in checked]
        which = " ".join(f"WHEN {test} THEN {i}" for i, test in enumerate(tests))
        row = conn.execute(f"SELECT rowid, CASE {which} END FROM {_quoted(table)} WHERE {' OR '.join(tests)} LIMIT 1"
                           ).fetchone()  # fmt: skip
        if row is None:
            continue
        rowid, index = row
        name, classes = checked[index]
        value, kind = conn.execute(f"SELECT {_quoted(name)}, typeof({_quoted(name)}) FROM {_quoted(table)} "
                                   "WHERE rowid = ?", (rowid,)).fetchone()  # fmt: skip
        shown = repr(value if not isinstance(value, bytes) else value[:20])
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise StoreError(f"results store {path}: damaged: table {table}, row {rowid}, column {name} holds "
                         f"{_NAMES.get(kind, kind)} {shown} where {_NAMES[classes[0]]} belongs; repair or restore "
                         "the file (it was not changed)")
