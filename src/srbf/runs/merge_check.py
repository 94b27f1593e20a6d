"""What ``srbf merge`` recomputes before it trusts a shard: every row's seed and points, and a
sample of fits re-run.

``check_rows`` goes through every prediction of every shard (``replay.Rows``): the run seed
re-derived (the config's, or a sealed run's from the shared secret), the key within the run
(method, budget, condition, draw, repeat, a selected problem), and the points re-drawn from the
key and hashed against the stored data hash. ``verify_fits`` re-runs ``k`` fits sampled from the
shards' deterministic methods (``replay.DETERMINISTIC``) from their rows alone and compares status
and formula. Either refuses the merge with one line naming the shard and the row, before anything
is written. What neither can recompute, the formula a non-deterministic method returned, is
trusted as far as the machine that ran it (docs/cluster.md, "Trust").
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

from srbf.runs.replay import Rows, describe, replay, replayable, spec_of
from srbf.store.merge import MergeError

__all__ = ["check_rows", "merge_checks", "verify_fits"]


def _rows_of(path: Path) -> tuple[Rows, list[Any]]:
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(path) as store:
        return Rows(store.campaign_rows(), store.stored_secret()), store.prediction_rows()


def check_rows(paths: Sequence[Path]) -> int:
    """MergeError naming the first row of the shards at ``paths`` that disagrees with what its
    campaign, the run secret and a re-draw say; else the number of rows checked."""
    checked = 0
    for path in paths:
        rows, predictions = _rows_of(path)
        for row in predictions:
            problem = rows.problem(row)
            if problem is not None:
                raise MergeError(f"{path}: {describe(row)}: {problem}; nothing was merged")
            checked += 1
    return checked


def verify_fits(paths: Sequence[Path], k: int, *, seed: int = 0) -> int:
    """Re-run ``k`` fits sampled (with ``seed``) from the deterministic methods' rows of the shards
    at ``paths``, each from its row alone; MergeError naming the first whose status or formula
    differs from the stored one. Returns how many were re-run (fewer when fewer exist)."""
    from srbf.runs.executor import new_worker

    candidates = []
    for path in paths:
        rows, predictions = _rows_of(path)
        candidates += [(path, rows, row) for row in predictions
                       if row.status != "placeholder" and int(row.campaign_id) in rows.campaigns
                       and replayable(rows.campaigns[int(row.campaign_id)])]
    chosen = random.Random(seed).sample(candidates, min(k, len(candidates)))
    chosen.sort(key=lambda item: (str(item[0]), int(item[2].campaign_id), int(item[2].id)))
    workers: dict[Any, Any] = {}
    try:
        for path, rows, row in chosen:
            spec = spec_of(rows.campaigns[int(row.campaign_id)])
            if spec not in workers:
                workers[spec] = new_worker(spec, start_timeout=600.0, tail_bytes=4096)
                workers[spec].start()
            again = replay(rows, row, worker=workers[spec])
            if (again.status, again.expression) != (row.status, row.expression):
                raise MergeError(f"{path}: {describe(row)}: re-run from its row it gives {again.status} "
                                 f"{again.expression!r}, the shard holds {row.status} {row.expression!r}; "
                                 "nothing was merged")
    finally:
        for worker in workers.values():
            worker.close()
    return len(chosen)


def merge_checks(verify: int = 0, *, seed: int = 0, counts: dict | None = None):
    """The ``check`` ``srbf.store.merge.merge_stores`` calls: ``check_rows``, then ``verify_fits``
    of ``verify`` fits; ``counts`` (if given) receives how many rows were checked and fits re-run."""

    def check(paths: Sequence[Path]) -> None:
        checked = check_rows(paths)
        rerun = verify_fits(paths, verify, seed=seed) if verify else 0
        if counts is not None:
            counts.update(checked=checked, verified=rerun)

    return check
