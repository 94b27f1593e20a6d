"""The store's tables, its schema version, and the checks made when a file is opened.

The file carries two numbers in its header: ``application_id`` marks it as an srbf results store
and ``user_version`` is the schema version below. A file from a newer srbf (a higher version) is
refused with a clear message rather than misread; a file from an older srbf is migrated when it is
opened for writing (``MIGRATIONS``), so that it ends with the same tables as a new file. A file
opened read-only is not migrated: readers cope with the older tables (see ``frames``).

The status and provenance lists are written out literally, not generated from
``srbf.core.STATUSES``: a file's CHECK constraints are fixed when it is created, so changing
them takes a new schema version (a test keeps the two in step).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from srbf.store.errors import StoreError

SCHEMA_VERSION = 6
APPLICATION_ID = 0x53524246  # "SRBF"

PROVENANCES = ("upstream_default", "author_blessed", "harness_tuned")

KEY_COLUMNS = (
    "method",
    "config_hash",
    "catalog",
    "catalog_version",
    "problem_id",
    "draw",
    "budget",
    "condition",
    "seed",
    "repeat",
)

# The method's stack on each campaign row (schema 3), as ``srbf.methods.stack.method_stack`` reads it.
METHOD_STACK_COLUMNS = (
    "method_python_version",
    "method_package",
    "method_package_version",
    "method_numpy_version",
    "method_scipy_version",
    "method_lock_hash",
)
# The libraries that score a metrics row (schema 3; with its judge version, a row of judge_stacks),
# as ``srbf.judge.stack.judge_stack`` reads them.
JUDGE_STACK_COLUMNS = (
    "python_version",
    "numpy_version",
    "scipy_version",
    "sympy_version",
    "mpmath_version",
)

# The fixed columns of a metrics frame (see frames.py); a metric may not take one of these names.
METRIC_FRAME_COLUMNS = (
    "prediction_id",
    "judge_version",
    "campaign_id",
    *KEY_COLUMNS,
    "provenance",
    "status",
    "created_at",
)

TABLES = """
CREATE TABLE campaigns (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL,
    config         TEXT NOT NULL,              -- JSON
    config_hash    TEXT NOT NULL,
    provenance     TEXT NOT NULL
                   CHECK (provenance IN ('upstream_default', 'author_blessed', 'harness_tuned')),
    srbf_version   TEXT NOT NULL,
    git_commit     TEXT,                       -- NULL: not run from a git checkout
    git_dirty      INTEGER CHECK (git_dirty IN (0, 1)),
    hostname       TEXT,
    platform       TEXT,
    cpu_count      INTEGER,
    python_version TEXT,
    created_at     TEXT NOT NULL,              -- ISO 8601, UTC
    -- the method's own stack, as its interpreter saw it (NULL: unknown, see srbf.methods.stack)
    method_python_version  TEXT,
    method_package         TEXT,               -- the distribution that fits ('srbf' for built-ins)
    method_package_version TEXT,
    method_numpy_version   TEXT,
    method_scipy_version   TEXT,               -- NULL also when SciPy is not installed there
    method_lock_hash       TEXT,               -- of the method environment's lock, from its manifest
    CHECK ((git_commit IS NULL) = (git_dirty IS NULL))
);

CREATE TABLE predictions (
    id              INTEGER PRIMARY KEY,
    campaign_id     INTEGER NOT NULL REFERENCES campaigns (id),
    method          TEXT NOT NULL,
    config_hash     TEXT NOT NULL,
    catalog         TEXT NOT NULL,
    catalog_version INTEGER NOT NULL,
    problem_id      TEXT NOT NULL,
    draw            INTEGER NOT NULL,
    budget          REAL NOT NULL,
    condition       TEXT NOT NULL,
    seed            INTEGER NOT NULL,
    repeat          INTEGER NOT NULL DEFAULT 0, -- which repeat of the method on the same points (schema 4)
    provenance      TEXT NOT NULL
                    CHECK (provenance IN ('upstream_default', 'author_blessed', 'harness_tuned')),
    status          TEXT NOT NULL
                    CHECK (status IN ('ok', 'failed', 'timeout', 'crashed', 'memory_limit', 'placeholder')),
    expression      TEXT,                      -- as the method returned it
    error           TEXT,
    wall_seconds    REAL,
    cpu_seconds     REAL,
    method_seconds  REAL,                      -- the method's own report, if any
    data_hash       TEXT NOT NULL,
    internals       TEXT NOT NULL DEFAULT '{}', -- JSON object
    stderr_tail     TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    inputs_hash     TEXT,                      -- of the X arrays alone, NULL if unknown
    peak_memory_bytes INTEGER,                 -- the method's process tree at its largest (schema 5)
    from_trajectory INTEGER NOT NULL DEFAULT 0 -- 1: a ladder's rung read from a longer fit's trajectory (schema 6)
                    CHECK (from_trajectory IN (0, 1)),
    UNIQUE (method, config_hash, catalog, catalog_version, problem_id, draw, budget, condition, seed, repeat)
);
CREATE INDEX predictions_by_campaign ON predictions (campaign_id);

CREATE TABLE trajectories (
    prediction_id INTEGER NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
    step          INTEGER NOT NULL,            -- 0, 1, 2, ... in the order reported
    seconds       REAL,                        -- since the start of the fit
    expression    TEXT NOT NULL,
    PRIMARY KEY (prediction_id, step)
);

CREATE TABLE metrics (
    id            INTEGER PRIMARY KEY,
    prediction_id INTEGER NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
    judge_version TEXT NOT NULL,
    metrics       TEXT NOT NULL,               -- JSON object: metric name -> value
    created_at    TEXT NOT NULL,
    judge_stack_id INTEGER REFERENCES judge_stacks (id), -- NULL: scored before schema 3
    UNIQUE (prediction_id, judge_version)
);

CREATE TABLE judge_stacks (                    -- what scored a metrics row besides the judge's code
    id             INTEGER PRIMARY KEY,
    judge_version  TEXT NOT NULL,
    python_version TEXT NOT NULL,
    numpy_version  TEXT NOT NULL,
    scipy_version  TEXT NOT NULL,
    sympy_version  TEXT NOT NULL,
    mpmath_version TEXT NOT NULL,
    UNIQUE (judge_version, python_version, numpy_version, scipy_version, sympy_version, mpmath_version)
);
"""

# The store's secret: the key under which the seed each method receives is derived from its fit's
# key (srbf.methods.isolation.method_seed). Not versioned: older srbf ignore the table, and every
# writer creates it if it is missing, so a new file and a migrated one are alike.
SECRET_TABLE = """
CREATE TABLE IF NOT EXISTS secret (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value BLOB NOT NULL
)
"""

# A shard store's identity (``srbf run --shard K/N``; ``srbf.store.shard_table``): one row, absent
# from a whole run's store. Not versioned, like the secret.
SHARD_TABLE = """
CREATE TABLE IF NOT EXISTS shard (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    k           INTEGER NOT NULL,
    n           INTEGER NOT NULL,
    plan_digest TEXT NOT NULL,                 -- of the whole run's plan: shards of one run share it
    planned     INTEGER NOT NULL,              -- fits in this shard's share
    CHECK (1 <= k AND k <= n AND planned >= 0)
)
"""

# A sealed run's seed (``srbf.store.sealed_table``): one row, absent for a public seed. Not
# versioned, like the secret.
SEALED_TABLE = """
CREATE TABLE IF NOT EXISTS sealed (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    seed     INTEGER NOT NULL,
    complete INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1))
)
"""


def _statement(prefix: str) -> str:
    """The statement of TABLES that starts with ``prefix``."""
    start = TABLES.index(prefix)
    return TABLES[start : TABLES.index(";", start)].strip()


def _rebuild_predictions(conn: sqlite3.Connection) -> None:
    """Rebuild the predictions table as TABLES declares it, for what ALTER TABLE cannot change:
    its UNIQUE constraint (schema 4: the key gains ``repeat``), its status CHECK (schema 5:
    ``memory_limit``) and a column with a CHECK (schema 6: ``from_trajectory``). As SQLite's manual prescribes (new table, copy, drop, rename), with foreign
    keys off (``create_or_migrate`` runs with them off) so that dropping the old table does not
    cascade to trajectories and metrics. Every row keeps its id; a column the old table lacks
    takes its default (repeat 0, no peak memory, not from a trajectory). A table already as declared is left alone."""
    table = _statement("CREATE TABLE predictions (")
    (current,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'predictions'").fetchone()
    if current.strip() == table:
        return
    present = {row[1] for row in conn.execute("PRAGMA table_info(predictions)")}
    columns = [line.split()[0] for line in table.splitlines()[1:] if line.startswith("    ") and line.split()[0].islower()]
    copied = ", ".join(c for c in columns if c in present)
    for statement in (
        table.replace("CREATE TABLE predictions (", "CREATE TABLE predictions_new (", 1),
        f"INSERT INTO predictions_new ({copied}) SELECT {copied} FROM predictions",
        "DROP TABLE predictions",
        "ALTER TABLE predictions_new RENAME TO predictions",
        _statement("CREATE INDEX predictions_by_campaign"),
    ):
        conn.execute(statement)


# Version -> the statements that bring a store of that version to the next one. A column added by
# ALTER TABLE goes last, so TABLES declares it last too: a migrated file and a new one are alike
# (a rebuilt table is created from TABLES itself).
MIGRATIONS = {
    1: ("ALTER TABLE predictions ADD COLUMN inputs_hash TEXT",),  # 2: the inputs' own hash
    2: (  # 3: the stack behind every result: the method's (per campaign) and the judge's (per metrics row)
        TABLES[TABLES.index("CREATE TABLE judge_stacks") :].strip().rstrip(";"),
        *(f"ALTER TABLE campaigns ADD COLUMN {column} TEXT" for column in METHOD_STACK_COLUMNS),
        "ALTER TABLE metrics ADD COLUMN judge_stack_id INTEGER REFERENCES judge_stacks (id)",
    ),
    3: (_rebuild_predictions,),  # 4: the repeat index joins the key
    4: (_rebuild_predictions,),  # 5: status memory_limit, and each fit's peak memory
    5: (_rebuild_predictions,),  # 6: from_trajectory, the ladder's rungs read from one fit
}

# What a key column a store predates reads as (a store opened read-only is not migrated).
ABSENT_KEY_VALUES = {"repeat": "0", "from_trajectory": "0"}


def column_list(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], alias: str = "") -> str:
    """A SELECT list of ``columns`` of ``table`` for a store of any schema: a column the file does
    not have yet reads as its ``ABSENT_KEY_VALUES`` value, or NULL."""
    present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    return ", ".join(
        f"{alias}{c}" if c in present else f"{ABSENT_KEY_VALUES.get(c, 'NULL')} AS {c}" for c in columns
    )


def _header(conn: sqlite3.Connection) -> tuple[int, int, int]:
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    return application_id, version, tables


def check_header(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of the store behind ``conn`` (0: an empty file); refuse foreign files."""
    application_id, version, tables = _header(conn)
    if application_id not in (0, APPLICATION_ID) or (application_id == 0 and tables > 0):
        raise StoreError(f"results store {path}: an SQLite file, but not an srbf results store")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"results store {path}: written by a newer srbf (store schema {version}; this srbf reads "
            f"schema {SCHEMA_VERSION} and older): upgrade srbf to read it"
        )
    return version


def create_or_migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Create the tables in an empty file, or migrate an older store, inside the caller's write
    transaction (so a migration is all or nothing), with foreign keys off (a rebuilt table must
    not cascade; ``foreign_key_check`` runs after).

    Also proves the file writable: a store whose file is read-only fails here, when it is opened,
    rather than at the first record of a run."""
    version = check_header(conn, path)  # again, under the write lock
    conn.execute(SECRET_TABLE)
    conn.execute(SHARD_TABLE)
    conn.execute(SEALED_TABLE)
    if version == SCHEMA_VERSION:
        # Rewrite the version (unchanged): a file SQLite opened read-only fails here, at open.
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return
    if version == 0:
        for statement in TABLES.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return
    for step in range(version, SCHEMA_VERSION):
        for statement in MIGRATIONS[step]:
            statement(conn) if callable(statement) else conn.execute(statement)
    broken = conn.execute("PRAGMA foreign_key_check").fetchone()
    if broken is not None:
        raise StoreError(f"results store {path}: migrating it left a dangling reference in {broken[0]}; nothing was changed")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
