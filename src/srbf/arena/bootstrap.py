"""The task bootstrap of SymbolicArena (its Section E.6): one set of task draws for everything.

Each replicate draws as many tasks as there are, with replacement, and keeps every recorded run
of each drawn task. ``task_weights`` makes the draws once, as a replicates x tasks matrix of how
often each task was drawn; every method, axis and condition is then resampled with the same
matrix (``interval``), so their intervals move together and can be read side by side. A
replicate's value is the mean over the runs of its drawn tasks (for STAB, over the drawn tasks'
scores): sum of weight x per-task sum over sum of weight x per-task count. The 2.5th and 97.5th
percentiles of the replicates are the 95 % interval.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_REPLICATES", "DEFAULT_SEED", "interval", "task_weights"]

DEFAULT_REPLICATES = 1000
DEFAULT_SEED = 0


def task_weights(n_tasks: int, replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """How often each of ``n_tasks`` tasks is drawn in each replicate (shape replicates x n_tasks):
    the same matrix for the same arguments, on every machine (NumPy's PCG64 generator)."""
    if replicates < 1:
        raise ValueError(f"replicates must be a positive integer, got {replicates!r}")
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_tasks, size=(replicates, n_tasks)) if n_tasks else np.empty((replicates, 0), int)
    weights = np.zeros((replicates, n_tasks))
    np.add.at(weights, (np.repeat(np.arange(replicates), n_tasks), drawn.ravel()), 1.0)
    return weights


def interval(weights: np.ndarray, sums: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """The 95 % interval of the mean of per-task ``sums`` over per-task ``counts`` (a task with
    count 0 has no value for this group) under the task draws ``weights``; NaN, NaN when no
    replicate drew a task with a value."""
    with np.errstate(invalid="ignore", divide="ignore"):
        replicate = (weights @ sums) / (weights @ counts)
    replicate = replicate[np.isfinite(replicate)]
    if replicate.size == 0:
        return float("nan"), float("nan")
    low, high = np.percentile(replicate, [2.5, 97.5])
    return float(low), float(high)
