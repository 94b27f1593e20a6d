"""``ResultsStore``: one SQLite file per results root, written by the driver, read by anyone.

The driver opens the store (``ResultsStore(root)``), starts a campaign, and records the fits as
they come back (``record_many``: those finishing within 50 ms of each other in one transaction).
``record`` writes one prediction and its trajectory in one transaction and commits at once, so
whatever a call has returned survives a crash or a ``kill -9``, and a rerun resumes by skipping
``done_keys()``. A key already stored is never written twice.

Readers (``ResultsStore.open_readonly``: ``srbf status``, notebooks, the report) may be other
processes and may read while a run writes: the file is in WAL mode, so a reader sees the last
commit and never blocks the writer (see ``connection``). Before its first read a store checks
that every cell has its column's type (``cells``): a damaged one is named in one line.

What a fit becomes as rows (and every check on it before it is written) is in ``rows``; the
inserts themselves in ``campaign_table``, ``fit_writes`` and ``metric_writes``, each inside the
transaction this class opens.

Floats: SQLite stores infinities exactly; NaN has no SQL value and is stored as NULL, so a NaN
time reads back as NaN in a frame (and ``None`` through plain SQL). Inside JSON columns (internals,
metrics, configs) NaN and infinities are kept exactly (see ``jsontext``).
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srbf.core import FitResult, TaskKey
from srbf.store.campaign_table import insert_campaign
from srbf.store.cells import check_cells
from srbf.store.connection import open_reader, open_writer, resolve_path, transaction
from srbf.store.environment import git_state, machine_info
from srbf.store.errors import DuplicateKeyWarning, StoreError, translate
from srbf.store.fit_writes import insert_fits
from srbf.store.jsontext import dumps
from srbf.store.metric_writes import check_names, insert_metrics, metric_text
from srbf.store.row_readers import (
    CAMPAIGN_COLUMNS,
    PREDICTION_COLUMNS,
    TRAJECTORY_COLUMNS,
    campaign_rows,
    metric_rows,
    named,
    prediction_rows,
    trajectory_rows,
)
from srbf.store.rows import Fit, fit_rows, now_text, stored_key
from srbf.store.schema import (
    JUDGE_STACK_COLUMNS,
    KEY_COLUMNS,
    METHOD_STACK_COLUMNS,
    METRIC_FRAME_COLUMNS,
    PROVENANCES,
    column_list,
)
from srbf.store.sealed_table import SealedSeed, claim_sealed, mark_complete, read_sealed
from srbf.store.shard_table import ShardInfo, claim_shard, read_secret, read_shard
from srbf.store.stacks import (
    METRIC_STACK_COLUMNS,
    metric_stack_rows,
    metric_stacks,
    stack_frame,
    stack_values,
)

if TYPE_CHECKING:
    import pandas as pd

class ResultsStore:
    """The results store of one results root (a directory, or the ``.sqlite`` file itself).

    ``ResultsStore(root)`` opens it for writing, creating the directory, the file and the tables
    as needed; ``ResultsStore.open_readonly(root)`` opens an existing store for reading only.
    Use it as a context manager, or call ``close()``. It is read through frames
    (``predictions_frame``, ``metrics_frame``, ``trajectories_frame``, ``campaigns_frame``) and
    written out with ``export`` (Parquet or CSV).

    Parameters
    ----------
    root_or_file : str or Path, optional
        The results root or its ``srbf.sqlite`` file (default: ``./srbf-results``).
    readonly : bool, default False
        Open an existing store for reading only (what ``open_readonly`` does).

    Raises
    ------
    StoreError
        The file cannot be opened, read or written, or a read-only store does not exist; the
        message names the file and what was being done.

    Notes
    -----
    One SQLite file in write-ahead-log mode, so readers (``srbf status``, a report) read while a
    run writes; only the driver writes, and a stored result is never overwritten (docs/store.md).

    Examples
    --------
    >>> import tempfile
    >>> from srbf.runs.config import config_from_dict
    >>> from srbf.runs.driver import run_config
    >>> folder = tempfile.TemporaryDirectory()
    >>> config = config_from_dict({
    ...     "experiment": "tiny", "catalogs": "nguyen", "limit": 2, "workers": 1, "results": folder.name,
    ...     "sampling": {"draws": 1, "n_support": 64, "n_validation": 64},
    ...     "methods": [{"name": "linear", "budgets": [1]}]})
    >>> _ = run_config(config, progress=False, log=lambda note: None)
    >>> with ResultsStore.open_readonly(folder.name) as store:
    ...     frame = store.predictions_frame(method="linear")
    ...     written = store.export(f"{folder.name}/predictions.csv")
    >>> frame[["method", "problem_id", "budget", "status"]].values.tolist()
    [['linear', 'Nguyen-1', 1.0, 'ok'], ['linear', 'Nguyen-2', 1.0, 'ok']]
    >>> written.name
    'predictions.csv'
    >>> ResultsStore.open_readonly(f"{folder.name}/nothing")
    Traceback (most recent call last):
    srbf.store.errors.StoreError: results store .../nothing/srbf.sqlite: no such file (nothing recorded there yet?)
    >>> folder.cleanup()
    """

    def __init__(self, root_or_file: str | Path | None = None, *, readonly: bool = False) -> None:
        self.path = resolve_path(root_or_file)
        self.readonly = readonly
        self._conn = open_reader(self.path) if readonly else open_writer(self.path)
        self._cells_checked = False

    @classmethod
    def open_readonly(cls, root_or_file: str | Path | None = None) -> ResultsStore:
        """An existing store, for reading while (or after) a run writes it."""
        return cls(root_or_file, readonly=True)

    def close(self) -> None:
        """Close the connection (the last one to close folds the write-ahead log into the file)."""
        self._conn.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r}{', readonly' if self.readonly else ''})"

    # -- writing (the driver only) ----------------------------------------------------------------

    @contextmanager
    def _writing(self, doing: str) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise StoreError(f"results store {self.path}: opened read-only, cannot write ({doing})")
        with transaction(self._conn, self.path, doing):
            yield self._conn

    def start_campaign(
        self,
        name: str,
        config: Mapping[str, Any],
        config_hash: str,
        provenance: str,
        *,
        git: tuple[str, bool] | None | str = "auto",
        method_stack: Mapping[str, str | None] | None = None,
    ) -> int:
        """Record the start of a run of experiment ``name``; return the campaign id.

        ``git`` is ``(commit, dirty)``, ``None``, or ``"auto"`` for the state of srbf's own source.
        ``method_stack`` is what the method ran with (``METHOD_STACK_COLUMNS``, as
        ``srbf.methods.stack.method_stack`` reads it); a field left out is stored as unknown (NULL).
        A rerun that resumes a config starts a new campaign; its records point to it.
        """
        if provenance not in PROVENANCES:
            raise ValueError(f"provenance {provenance!r} is not one of {', '.join(PROVENANCES)}")
        stack = stack_values(method_stack, METHOD_STACK_COLUMNS, f"method stack of campaign {name!r}")
        config_text = dumps(dict(config), f"config of campaign {name!r}")
        state = git_state() if git == "auto" else git
        machine = machine_info()
        with self._writing(f"starting campaign {name!r}") as conn:
            return insert_campaign(conn, name, config_text, config_hash, provenance, state, machine, stack)

    def secret(self) -> bytes:
        """The store's secret (32 random bytes, made on first use): the seeds methods receive are
        derived under it, so they cannot be traced back to the run seed (see ``method_seed``)."""
        with self._writing("reading the store's secret") as conn:
            row = conn.execute("SELECT value FROM secret WHERE id = 1").fetchone()
            if row is None:
                value = os.urandom(32)
                conn.execute("INSERT INTO secret (id, value) VALUES (1, ?)", (value,))
                return value
            return bytes(row[0])

    def stored_secret(self) -> bytes | None:
        """The store's secret if it has one (read-only; ``secret`` makes one when it is missing)."""
        return self._read("reading its secret", read_secret)

    def claim_sealed(self, seed: int | None) -> None:
        """Make this store the store of a run sealed with ``seed`` (or check that it is); ``None``:
        check that it holds no sealed run (``sealed_table``)."""
        with self._writing("claiming the store for a sealed run") as conn:
            claim_sealed(conn, self.path, seed)

    def mark_sealed_complete(self) -> None:
        """Every fit of the sealed run is stored: exports may carry its seed from now on."""
        with self._writing("marking the sealed run complete") as conn:
            mark_complete(conn)

    def sealed(self) -> SealedSeed | None:
        """The sealed run's seed and whether the run is complete; None for a public seed."""
        return self._read("reading its sealed seed", read_sealed)

    def claim_shard(self, info: ShardInfo | None, secret: bytes | None = None) -> None:
        """Make this store shard ``info`` of a run whose shards share ``secret`` (or check that it
        is); ``None``: check that it is not a shard. StoreError when it belongs elsewhere
        (``shard_table``)."""
        with self._writing("claiming the store for a run") as conn:
            claim_shard(conn, self.path, info, secret)

    def shard(self) -> ShardInfo | None:
        """Which shard of a sharded run this store holds; None for a whole (or merged) run."""
        return self._read("reading its shard", read_shard)

    def record(
        self,
        key: TaskKey,
        result: FitResult,
        *,
        campaign_id: int,
        data_hash: str,
        provenance: str | None = None,
        inputs_hash: str | None = None,
    ) -> int:
        """Store one fit (prediction and trajectory, one transaction); return its prediction id.

        ``provenance`` defaults to the campaign's. If ``key`` is already stored, nothing is written:
        a ``DuplicateKeyWarning`` is issued and the stored prediction's id returned.
        """
        (prediction_id,) = self.record_many([Fit(key, result, campaign_id, data_hash, provenance, inputs_hash)])
        return prediction_id

    def record_many(self, fits: Sequence[Fit]) -> list[int]:
        """Store several fits in ONE transaction (one sync to disk instead of one each); return
        their prediction ids in order. All or none are written."""
        created_at = now_text()
        rows = [fit_rows(fit, created_at) for fit in fits]  # every check before anything is written
        if not rows:
            return []
        first = fits[0].key
        doing = f"recording {first.method} on {first.catalog}/{first.problem_id} draw {first.draw} seed {first.seed}"
        doing += f" repeat {first.repeat}" if first.repeat else ""
        if len(rows) > 1:
            doing += f" and {len(rows) - 1} more fit(s)"
        with self._writing(doing) as conn:
            ids, duplicates = insert_fits(conn, self.path, fits, rows, doing)
        for key, existing in duplicates:
            warnings.warn(
                f"{self.path}: {key} is already stored as prediction {existing}; the new result was not written",
                DuplicateKeyWarning,
                stacklevel=3,
            )
        return ids

    def record_metrics_many(
        self,
        rows: Sequence[tuple[int, Mapping[str, Any]]],
        judge_version: str,
        *,
        replace: Collection[int] = (),
        judge_stack: Mapping[str, str] | None = None,
    ) -> int:
        """Store many predictions' metrics in ONE transaction (a scoring pass writes a chunk at a
        time: one sync to disk per chunk); return how many rows were written. Rows of predictions
        in ``replace`` overwrite existing metrics of this judge version; others keep them.
        ``judge_stack``: the library versions that scored them (``JUDGE_STACK_COLUMNS``, as
        ``srbf.judge.stack.judge_stack`` reads them); None records them as unknown."""
        stack = stack_values(judge_stack, JUDGE_STACK_COLUMNS, "judge stack")
        accepted: set[str] = set()
        texts = []
        for prediction_id, metrics in rows:
            check_names(metrics, accepted)
            texts.append((prediction_id, metric_text(prediction_id, metrics)))
        if not texts:
            return 0
        with self._writing(f"recording the metrics of {len(texts)} prediction(s) (judge {judge_version})") as conn:
            return insert_metrics(conn, texts, judge_version, stack, replace)

    def record_metrics(
        self,
        prediction_id: int,
        judge_version: str,
        metrics: Mapping[str, Any],
        *,
        replace: bool = False,
        judge_stack: Mapping[str, str] | None = None,
    ) -> int:
        """Store the judge's metrics for one prediction; return the metrics row id.

        One row per (prediction, judge version): a second call keeps the first row (with a
        ``DuplicateKeyWarning``) unless ``replace`` is true. ``judge_stack`` as for
        ``record_metrics_many``.
        """
        check_names(metrics, set())
        stack = stack_values(judge_stack, JUDGE_STACK_COLUMNS, "judge stack")
        text = metric_text(prediction_id, metrics)
        doing = f"recording metrics of prediction {prediction_id} (judge {judge_version})"
        with self._writing(doing) as conn:
            if conn.execute("SELECT 1 FROM predictions WHERE id = ?", (prediction_id,)).fetchone() is None:
                raise StoreError(f"results store {self.path}: no prediction {prediction_id} ({doing})")
            written = insert_metrics(conn, [(prediction_id, text)], judge_version, stack,
                                     (prediction_id,) if replace else ())  # fmt: skip
            row_id = conn.execute(
                "SELECT id FROM metrics WHERE prediction_id = ? AND judge_version = ?",
                (prediction_id, str(judge_version)),
            ).fetchone()[0]
        if not written:
            warnings.warn(
                f"{self.path}: prediction {prediction_id} already has metrics of judge "
                f"{judge_version}; kept them",
                DuplicateKeyWarning,
                stacklevel=2,
            )
        return int(row_id)

    def forget(self, pairs: Collection[tuple[str, str]]) -> dict[str, int]:
        """Remove the configurations ``pairs`` ((method, config_hash)) in ONE transaction: their
        predictions, trajectories and metrics, the campaigns that recorded only them and the judge
        stacks only their metrics used (``configurations.forget_rows``); return the counts removed."""
        from srbf.store.configurations import forget_rows

        with self._writing(f"forgetting {len(pairs)} configuration(s)") as conn:
            return forget_rows(conn, pairs)

    # -- reading ----------------------------------------------------------------------------------

    def _check_cells(self) -> None:
        """Before the first read: a cell of the wrong type (a damaged store) is named in one line
        (``cells``) instead of failing somewhere inside a reader."""
        if not self._cells_checked:
            try:
                check_cells(self._conn, self.path)
            except sqlite3.DatabaseError as exc:
                raise translate(exc, self.path, "checking its cells") from exc
            self._cells_checked = True

    def _read(self, doing: str, reader: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._check_cells()
        try:
            return reader(self._conn, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.path, doing) from exc

    def _frames(self, doing: str, reader: str, *args: Any, **kwargs: Any) -> Any:
        from srbf.store import frames  # pandas is imported by the frame readers only, not by the driver

        return self._read(doing, getattr(frames, reader), *args, **kwargs)

    def configurations(self) -> list:
        """Every configuration with stored fits (``srbf.store.configurations.Configuration``),
        grouped by label, newest first: what ``srbf runs`` lists and ``--configs`` chooses from."""
        from srbf.store.configurations import read_configurations

        return self._read("reading its configurations", read_configurations)

    def forget_counts(self, pairs: Collection[tuple[str, str]]) -> dict[str, int]:
        """How many rows ``forget(pairs)`` would remove, per table (nothing is removed)."""
        from srbf.store.configurations import forget_counts

        return self._read("counting a configuration's rows", forget_counts, pairs)

    def done_keys(self, config_hash: str | None = None) -> set[TaskKey]:
        """Every stored key (of one configuration hash, if given), whatever its status: resume skips them."""
        where, params = (" WHERE config_hash = ?", [config_hash]) if config_hash is not None else ("", [])
        self._check_cells()
        try:
            columns = column_list(self._conn, "predictions", KEY_COLUMNS)  # an older store's keys: repeat 0
            rows = self._conn.execute(f"SELECT {columns} FROM predictions{where}", params)
            return {stored_key(row) for row in rows}
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.path, "reading the stored keys") from exc

    def predictions_frame(self, *, decode_json: bool = True, **filters: Any) -> pd.DataFrame:
        """Predictions as a DataFrame, oldest first.

        Parameters
        ----------
        decode_json : bool, default True
            Decode the JSON columns (a fit's internals, its options) into Python objects.
        **filters
            Columns such as ``method=``, ``catalog=``, ``campaign_id=``, ``status=``, each a value
            or a list of values.

        Returns
        -------
        pandas.DataFrame
            One row per stored fit: its key (method, configuration hash, catalog, problem, draw,
            budget, condition, seed, repeat), status, prediction and timings.

        Raises
        ------
        StoreError
            The file cannot be read.
        ValueError
            A filter that names no filterable column (the message lists them).

        Examples
        --------
        See :class:`ResultsStore`.
        """
        return self._frames("reading predictions", "predictions", filters, decode_json=decode_json)

    def unscored_predictions(self, judge_version: str, **filters: Any) -> pd.DataFrame:
        """Predictions (as ``predictions_frame``) that have no metrics from ``judge_version`` yet."""
        return self._frames(
            "reading unscored predictions", "predictions", filters, unscored_by=str(judge_version)
        )

    def scored_predictions(self, judge_version: str, flag: str, **filters: Any) -> tuple[pd.DataFrame, list[str], int]:
        """The selected predictions scored by ``judge_version``, their metrics' JSON texts and the
        number selected (``srbf.store.frames.scored_predictions``; the long frame's one read)."""
        return self._frames("reading scored predictions", "scored_predictions", str(judge_version), filters, flag)

    def trajectories_frame(self, **filters: Any) -> pd.DataFrame:
        """Trajectory steps (prediction_id, step, seconds, expression) in order; filter by
        ``prediction_id=`` or any predictions filter."""
        return self._frames("reading trajectories", "trajectories", filters)

    def metrics_frame(
        self, judge_version: str | None = None, *, expand: bool = True, **filters: Any
    ) -> pd.DataFrame:
        """Metrics with their prediction's key, one column per metric.

        Parameters
        ----------
        judge_version : str, optional
            Only the metrics of this judge version (default: all judges').
        expand : bool, default True
            One column per metric; False keeps each row's metrics as one JSON text.
        **filters
            As for :meth:`predictions_frame`.

        Returns
        -------
        pandas.DataFrame
            One row per scored prediction and judge version (empty before ``srbf score``).

        Raises
        ------
        StoreError
            The file cannot be read.
        """
        version = None if judge_version is None else str(judge_version)
        return self._frames("reading metrics", "metrics", version, filters, expand=expand)

    def campaigns_frame(self) -> pd.DataFrame:
        """Every campaign with its config, provenance, srbf version, git state, machine and the
        method's stack."""
        return self._frames("reading campaigns", "campaigns")

    def metric_stacks_frame(self, judge_version: str | None = None) -> pd.DataFrame:
        """Per metrics row: prediction_id, judge_version and the library versions that scored it."""
        version = None if judge_version is None else str(judge_version)
        return self._read("reading the judge stacks", metric_stacks, version)

    def stack_frame(self, **filters: Any) -> pd.DataFrame:
        """The stack behind the selected predictions: one row per method, run stack and judge stack
        (``srbf.store.stacks``; ``stack_table`` makes it the table ``srbf status`` prints)."""
        return self._read("reading the stacks", stack_frame, filters)

    def export(self, path: str | Path, format: str | None = None, *, metrics: str | None = None,
               configs: Any = None, **filters: Any) -> Path:  # fmt: skip
        """Write predictions to Parquet or CSV and return the path.

        Parameters
        ----------
        path : str or Path
            The file to write.
        format : {"parquet", "csv"}, optional
            Default: from the suffix of ``path``.
        metrics : str, optional
            A judge version, whose metrics each row then carries (one column per metric).
        configs : configurations.Selection, optional
            Write only these configurations.
        **filters
            As for :meth:`predictions_frame`.

        Returns
        -------
        Path
            ``path``, written.

        Raises
        ------
        StoreError
            The store cannot be read or the file cannot be written.
        ValueError
            A format that is neither given nor told by the suffix, or not "parquet" or "csv".

        Notes
        -----
        The seed column of a sealed run is empty until the run is complete: the seeds are
        published with the run, not before.

        Examples
        --------
        See :class:`ResultsStore`.
        """
        sealed = self.sealed()
        withhold = sealed is not None and not sealed.complete  # published with the run, not before
        return self._frames("exporting predictions", "export_predictions", Path(path), format, filters, metrics,
                            configs, withhold_seed=withhold)

    # -- reading rows (no pandas: what the scoring pass plans from) -------------------------------

    def prediction_rows(self, columns: Iterable[str] = PREDICTION_COLUMNS, **filters: Any) -> list[tuple]:
        """Predictions' ``columns`` as named tuples, oldest first (internals as JSON text); filters
        as for ``predictions_frame``."""
        columns = tuple(columns)
        rows = self._read("reading predictions", prediction_rows, filters, columns=columns)
        return list(map(named(columns)._make, rows))

    def trajectory_rows(self, **filters: Any) -> list[tuple]:
        """Trajectory steps as named tuples (prediction_id, step, seconds, expression) in order;
        filters as for ``trajectories_frame``."""
        return list(map(named(TRAJECTORY_COLUMNS)._make, self._read("reading trajectories", trajectory_rows, filters)))

    def metric_rows(self, judge_version: str | None = None, **filters: Any) -> list[tuple]:
        """Metrics rows as named tuples: their prediction's key (the columns of ``metrics_frame``)
        and ``metrics``, the JSON text (all judges if ``judge_version`` is None)."""
        version = None if judge_version is None else str(judge_version)
        rows = self._read("reading metrics", metric_rows, version, filters)
        return list(map(named((*METRIC_FRAME_COLUMNS, "metrics"))._make, rows))

    def campaign_rows(self) -> list[tuple]:
        """Every campaign as a named tuple (the columns of ``campaigns_frame``), config decoded."""
        return list(map(named(CAMPAIGN_COLUMNS)._make, self._read("reading campaigns", campaign_rows)))

    def metric_stack_rows(self, judge_version: str | None = None) -> list[tuple]:
        """Per metrics row, as named tuples: prediction_id, judge_version and the library versions
        that scored it (the columns of ``metric_stacks_frame``)."""
        version = None if judge_version is None else str(judge_version)
        rows = self._read("reading the judge stacks", metric_stack_rows, version)
        return list(map(named(METRIC_STACK_COLUMNS)._make, rows))
