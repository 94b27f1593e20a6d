"""``srbf status``: the planned fits of a config against what its store holds so far
(``collect_status``), or, without a config, what a store holds (``store_counts``); and why the
stored fits that were not ok failed, grouped (``stored_failures``).

The store is opened read-only, so this is safe while a run writes it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from srbf.core import TaskKey
from srbf.methods.own_predictions import MISMATCH_KEY
from srbf.runs.config import RunConfig
from srbf.runs.plan import Plan, load_catalogs, make_plan
from srbf.runs.shards import Shard, shard_plan
from srbf.runs.sweeps import Variant

__all__ = ["StatusRow", "collect_status", "from_trajectory_line", "store_counts", "stored_failures"]


@dataclass
class StatusRow:
    """Fits of one method variant, catalog and budget: planned, and how many of each status."""

    method: str
    catalog: str
    budget: float
    planned: int = 0
    statuses: Counter = field(default_factory=Counter)
    mismatches: int = 0  # ok fits whose formula disagrees with the method's own predict
    provenance: str = ""  # who chose the configuration (config_provenance), shown next to the name
    from_trajectory: int = 0  # stored fits read from a longer fit's trajectory (srbf.runs.ladder)

    def mismatch_note(self) -> str | None:
        """One line about the fits whose model string is not what the method fitted, if any."""
        if not self.mismatches:
            return None
        return (f"{self.method} on {self.catalog} at budget {self.budget:g}: {self.mismatches} of "
                f"{self.statuses['ok']} formulas disagree with the method's own predict (model_string_mismatch)")

    @property
    def stored(self) -> int:
        return sum(self.statuses.values())

    @property
    def pending(self) -> int:
        return self.planned - self.stored


def collect_status(
    config: RunConfig, *, variants: Sequence[Variant] | None = None, shard: Shard | None = None
) -> tuple[list[StatusRow], Path, bool]:
    """Per (variant, catalog, budget): planned fits and the statuses stored so far; with ``shard``,
    of that shard's share only (its store is ``config.results``).

    Opens the store read-only (safe while a run writes). Returns the rows, the store file and
    whether the store exists yet.
    """
    from srbf.store import ResultsStore, resolve_path, row_key

    from srbf.runs.sealed import planning_seed

    variants = list(config.variants()) if variants is None else list(variants)
    config = planning_seed(config)  # a sealed run's keys hold its store's seed
    plan: Plan = make_plan(config, variants=variants, catalogs=load_catalogs(config))
    if shard is not None:
        plan, _ = shard_plan(plan, shard)
    path = resolve_path(config.results).resolve()
    stored: dict[TaskKey, tuple[str, bool, bool]] = {}
    exists = path.is_file()
    if exists:
        with ResultsStore.open_readonly(config.results) as store:
            hashes = list(dict.fromkeys(v.config_hash for v in variants))
            frame = store.predictions_frame(config_hash=hashes, decode_json=False)
        for row in frame.itertuples(index=False):
            stored[row_key(row)] = (row.status, MISMATCH_KEY in (row.internals or ""), bool(row.from_trajectory))
    label = {(v.name, v.config_hash): v.label for v in variants}
    provenance = {v.label: v.method.config_provenance for v in variants}
    rows: dict[tuple[str, str, float], StatusRow] = {}
    for key in plan.keys:
        name = label[(key.method, key.config_hash)]
        row = rows.setdefault((name, key.catalog, key.budget),
                              StatusRow(name, key.catalog, key.budget, provenance=provenance[name]))
        row.planned += 1
        status, mismatch, read = stored.get(key, (None, False, False))
        if status is not None:
            row.statuses[status] += 1
            row.mismatches += mismatch
            row.from_trajectory += read
    return list(rows.values()), path, exists


def from_trajectory_line(rows: Sequence[StatusRow]) -> str | None:
    """One line on the stored fits read from a ladder's one fit, if any."""
    read = sum(row.from_trajectory for row in rows)
    if not read:
        return None
    return (f"{read} of the stored fits were read from a longer fit's exact trajectory (one fit per ladder; "
            "no CPU seconds or peak memory of their own)")


ABNORMAL = ("failed", "timeout", "crashed")


def stored_failures(store, label_of: dict[tuple[str, str], str]) -> list:
    """The stored fits of the configurations ``label_of`` maps ((method, config_hash) -> label)
    that were not ok, grouped by method, status and reason (``summary.failure_groups``)."""
    from srbf.runs.summary import failure_groups, fit_place

    if not label_of:
        return []
    columns = ("method", "config_hash", "status", "error", "catalog", "problem_id", "draw", "budget")
    rows = store.prediction_rows(columns, status=list(ABNORMAL), config_hash=sorted({h for _, h in label_of}))
    return failure_groups((label_of[(r.method, r.config_hash)], r.status, r.error, fit_place(r))
                          for r in rows if (r.method, r.config_hash) in label_of)  # fmt: skip


def store_counts(store, label_of: dict[tuple[str, str], str]) -> list[StatusRow]:
    """Per (label, catalog, budget): the stored fits of each status (``srbf status`` without a
    config, where nothing is planned)."""
    columns = ("method", "config_hash", "catalog", "budget", "status", "provenance", "from_trajectory")
    rows: dict[tuple[str, str, float], StatusRow] = {}
    for r in store.prediction_rows(columns):
        name = label_of.get((r.method, r.config_hash), r.method)
        row = rows.setdefault((name, r.catalog, r.budget), StatusRow(name, r.catalog, r.budget, provenance=r.provenance))
        row.statuses[r.status] += 1
        row.from_trajectory += bool(r.from_trajectory)
    return sorted(rows.values(), key=lambda row: (row.method, row.catalog, row.budget))
