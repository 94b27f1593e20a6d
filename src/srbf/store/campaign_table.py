"""The ``campaigns`` table's one write: a run's start, with its config and where it ran.

A campaign row records what started a run (its config as JSON, the config's hash, the
provenance its fits default to), srbf's version and git state, the machine and the method's
stack; every prediction row points to one. Readers are in ``row_readers`` and ``frames``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

import srbf
from srbf.store.rows import now_text
from srbf.store.schema import METHOD_STACK_COLUMNS

__all__ = ["insert_campaign"]

_INSERT_CAMPAIGN = (
    "INSERT INTO campaigns (name, config, config_hash, provenance, srbf_version, git_commit, git_dirty, hostname,"
    f" platform, cpu_count, python_version, created_at, {', '.join(METHOD_STACK_COLUMNS)})"
    f" VALUES ({', '.join('?' * (12 + len(METHOD_STACK_COLUMNS)))})"
)


def insert_campaign(conn: sqlite3.Connection, name: str, config_text: str, config_hash: str, provenance: str,
                    git: tuple[str, bool] | None, machine: Mapping[str, object], stack: Sequence[str | None]) -> int:  # fmt: skip
    """Insert the campaign (``git``: srbf's commit and whether it was dirty, or None; ``machine``:
    ``environment.machine_info``; ``stack``: the method's, in ``METHOD_STACK_COLUMNS`` order);
    return its id."""
    commit, dirty = (None, None) if git is None else (str(git[0]), int(bool(git[1])))
    cursor = conn.execute(_INSERT_CAMPAIGN, (
        name, config_text, config_hash, provenance, srbf.__version__, commit, dirty, machine["hostname"],
        machine["platform"], machine["cpu_count"], machine["python_version"], now_text(), *stack,
    ))  # fmt: skip
    return int(cursor.lastrowid)
