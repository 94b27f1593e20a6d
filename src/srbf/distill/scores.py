"""The clipped log error of a run and the task score of a method (SymbolicArena's Appendix C.4), the number aggregate fidelity averages.

l(x) = clip(log10(max(x, 1e-12)), -12, 12) is a run's clipped log NMSE (``log_error``); a run
counts as valid (``run_log_errors``) when its formula is valid with a finite NMSE on the ID points
and, for a task with OOD points (any run of the task has one), on those. For task i and method p with K scheduled runs of which f had no valid evaluable output:
z = -(m_id + m_ood) / 2 - lambda f / K when at least one run was valid (m the medians of the
clipped log NMSE over the valid runs, ``descriptors.log_error``; a task without OOD points uses
m_id for both), and z = -12 when none was; lambda = 2. Higher is better. A method's aggregate
score on a task set S is A(S) = the mean of z over S.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from srbf.distill.records import Records

__all__ = ["LOG_CLIP", "NO_VALID_SCORE", "PENALTY", "log_error", "run_log_errors", "task_scores"]

LOG_CLIP = 12.0
PENALTY = 2.0
NO_VALID_SCORE = -LOG_CLIP


def log_error(nmse) -> np.ndarray:
    """The clipped log NMSE l(x); NaN for a missing, negative or non-finite NMSE."""
    x = np.asarray(nmse, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.clip(np.log10(np.maximum(x, 1e-12)), -LOG_CLIP, LOG_CLIP)
    return np.where(np.isfinite(x) & (x >= 0), out, np.nan)


def run_log_errors(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with ``l_id``, ``l_ood`` (``l_id`` for a task without OOD points) and ``ok`` (valid)."""
    runs = runs.copy()
    has_ood = runs.groupby("task")["nmse_ood"].transform(lambda s: bool(np.isfinite(s.to_numpy(float)).any()))
    runs["l_id"] = log_error(runs["nmse_id"])
    runs["l_ood"] = np.where(has_ood.to_numpy(bool), log_error(runs["nmse_ood"]), runs["l_id"])
    runs["ok"] = runs["valid"].to_numpy(bool) & np.isfinite(runs["l_id"]) & np.isfinite(runs["l_ood"])
    return runs


def task_scores(records: Records, methods: Sequence[str] | None = None, *, penalty: float = PENALTY) -> pd.DataFrame:
    """z for every task (rows) and method (columns; default every method of the records). A
    method without any run on a task scores as one without a valid run."""
    runs = run_log_errors(records.runs)  # OOD points or not: a fact of the task, from every run of it
    if methods is not None:
        runs = runs[runs["method"].isin(methods)]
    k = records.repeats
    good = runs[runs["ok"]].groupby(["task", "method"])
    m = (good["l_id"].median() + good["l_ood"].median()) / 2.0
    failed = k - good.size()
    z = (-m - penalty * failed / k).unstack("method")
    tasks = sorted(records.runs["task"].unique())
    columns = sorted(runs["method"].unique()) if methods is None else list(methods)
    return z.reindex(index=tasks, columns=columns).fillna(NO_VALID_SCORE)
