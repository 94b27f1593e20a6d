"""The records distillation reads: every run of a results store under one data condition.

The per-run evaluation is the arena's (``srbf.arena.collect``: each stored final formula judged on
the regenerated ID and OOD points, validity included), so distillation and ``srbf arena score``
read one set of numbers. The training error (the NMSE on the support points, which probe
selection needs) is the judge's ``fvu_support`` from ``srbf score``; without it the records still
serve ``srbf distill`` with ``--probes``.

A method is keyed by its label (``method`` of the arena's runs); a label run at more than one
budget is keyed ``label@budget``. A task is ``set/problem_id``; all its draws and repeats count as
its runs, and ``repeats`` is the number of runs a method was scheduled per task (the most found).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from srbf.distill.errors import DistillError

__all__ = ["RUN_COLUMNS", "Records", "load_records", "select_condition"]

RUN_COLUMNS = ("prediction_id", "method", "method_name", "task", "repeat", "valid", "nmse_train", "nmse_id", "nmse_ood")


@dataclass(frozen=True)
class Records:
    """The runs of one condition (``RUN_COLUMNS``), where they came from, and the scheduled repeats."""

    runs: pd.DataFrame
    source: str
    condition: str
    repeats: int
    configs_note: str | None = None  # the configurations set aside (srbf.store.configurations)

    @property
    def methods(self) -> list[str]:
        return sorted(self.runs["method"].unique())

    @property
    def tasks(self) -> list[str]:
        return sorted(self.runs["task"].unique())

    def method_names(self) -> dict[str, str]:
        """Each method key's method as keyed in the store (``prior`` for ``prior[depth=3]``)."""
        return dict(zip(self.runs["method"], self.runs["method_name"]))


def select_condition(runs: pd.DataFrame, condition: str | None, where: str) -> str:
    """The condition to distil from: ``condition`` if given (and present), else the one clean
    (noise 0) condition; DistillError naming the choices otherwise."""
    found = sorted(runs["condition"].unique())
    if condition is not None:
        if condition not in found:
            raise DistillError(f"{where}: no runs under the condition {condition!r} (found: {', '.join(found)})")
        return condition
    clean = sorted(runs.loc[runs["noise"] == 0, "condition"].unique())
    if len(clean) == 1:
        return clean[0]
    choices = clean or found
    raise DistillError(f"{where}: {len(choices)} conditions to choose from ({', '.join(choices)}): pass --condition")


def _keyed(runs: pd.DataFrame) -> pd.Series:
    budgets = runs.groupby("method")["budget"].nunique()
    several = set(budgets[budgets > 1].index)
    return pd.Series([f"{m}@{b:g}" if m in several else m for m, b in zip(runs["method"], runs["budget"])], index=runs.index)


def _train_errors(results: str | Path) -> dict[int, float]:
    from srbf.judge import JUDGE_VERSION
    from srbf.store import metrics_long_frame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unscored predictions: their training error is unavailable
        frame = metrics_long_frame(results, judge_version=JUDGE_VERSION)
    if "fvu_support" not in frame:
        return {}
    values = pd.to_numeric(frame["fvu_support"], errors="coerce")
    return {int(p): float(v) for p, v in zip(frame["prediction_id"], values) if pd.notna(v)}


def load_records(results: str | Path, *, condition: str | None = None, configs=("latest",)) -> Records:
    """The runs of the results store at ``results`` (a results directory or store file) under
    ``condition`` (default: its one clean condition), of the configurations ``configs`` chooses
    (``srbf.store.configurations``)."""
    from srbf.arena import ArenaError, collect

    where = str(results)
    try:
        data = collect(results, configs)
    except ArenaError as error:
        raise DistillError(f"records {where}: {error}") from None
    runs = data.runs
    if runs.empty:
        raise DistillError(f"records {where}: no run could be evaluated")
    chosen = select_condition(runs, condition, f"records {where}")
    runs = runs[runs["condition"] == chosen].copy()
    runs["method"] = _keyed(runs)
    train = _train_errors(results)
    runs["nmse_train"] = [train.get(int(p), np.nan) for p in runs["prediction_id"]]
    for column in ("nmse_id", "nmse_ood"):
        runs[column] = pd.to_numeric(runs[column], errors="coerce")
    runs["valid"] = runs["valid"].astype(bool)
    runs = runs[list(RUN_COLUMNS)].reset_index(drop=True)
    repeats = int(runs.groupby(["method", "task"]).size().max())
    return Records(runs=runs, source=where, condition=chosen, repeats=repeats, configs_note=data.configs_note)
