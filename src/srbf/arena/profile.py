"""The six-axis profile of every method and condition, with task-bootstrap intervals, and the
noise robustness table.

``profile`` averages the per-run axes (ID, OOD, SYM, MIN, EFF) over the runs of a method, budget
and condition (every draw and repeat of every task), and STAB over tasks (a task's STAB is the
mean over its drawn points of the STAB of their repeats). The 95 % intervals come from one matrix
of task draws (``bootstrap.task_weights`` over every task in the results), the same for every
method, axis and condition. Scores are on SymbolicArena's display scale, 0 to 100. An axis a
method and condition cannot have (OOD without out-of-range points, EFF without a trajectory,
STAB with fewer than 2 repeats) is missing, and the row's ``notes`` say why.

``robustness`` puts each axis side by side across noise levels (clean, 1 %, 5 %, ...) with the
change from clean, for every method, budget and support size run at more than one noise level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from srbf.arena.bootstrap import DEFAULT_REPLICATES, DEFAULT_SEED, interval, task_weights
from srbf.arena.collect import ArenaData

__all__ = ["AXES", "AXIS_NAMES", "PROFILE_KEYS", "profile", "robustness"]

AXES = ("id", "ood", "sym", "min", "eff", "stab")
AXIS_NAMES = {"id": "ID", "ood": "OOD", "sym": "SYM", "min": "MIN", "eff": "EFF", "stab": "STAB"}
PROFILE_KEYS = ("method", "budget", "condition")
SCALE = 100.0  # the display scale


def _per_task(tasks: pd.Series, values: pd.Series, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Per task: the sum and the count of the non-missing ``values``."""
    sums, counts = np.zeros(len(index)), np.zeros(len(index))
    present = values.notna().to_numpy()
    positions = np.array([index[t] for t in tasks[present]], dtype=int)
    np.add.at(sums, positions, values[present].to_numpy(dtype=float))
    np.add.at(counts, positions, 1.0)
    return sums, counts


def _notes(runs: pd.DataFrame, stability: pd.DataFrame) -> list[str]:
    notes = []
    if runs["ood"].isna().all():
        notes.append(f"OOD: {runs['ood_note'].iloc[0] or 'no out-of-range points'}")
    missing_eff = int(runs["eff"].isna().sum())
    if missing_eff == len(runs):
        notes.append(f"EFF: {runs['eff_note'].iloc[0]}")
    elif missing_eff:
        notes.append(f"EFF: over {len(runs) - missing_eff} of {len(runs)} runs (the others have no trajectory)")
    if stability.empty or stability["stab"].isna().all():
        most = int(stability["repeats"].max()) if len(stability) else 0
        notes.append(f"STAB: needs 2 repeats per task (found {most})")
    elif not _takes_seed(str(runs["method_name"].iloc[0])):
        notes.append("STAB: the method takes no seed, so its repeats differ only by its own randomness")
    return notes


def _takes_seed(method: str) -> bool:
    """False for a roster method whose method.yaml says ``reproducible: false`` (it ignores the
    seed srbf gives it): its STAB says how repeatable its runs are, not how stable across seeds."""
    from srbf.methods.roster import UnknownMethod, get

    try:
        return get(method).reproducible
    except UnknownMethod:
        return True


def profile(data: ArenaData, *, replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One row per method, budget and condition: each axis's score, interval low and high (0-100),
    the numbers of tasks and runs, and notes on missing axes."""
    runs, stability = data.runs, data.stability
    tasks = sorted(set(runs["task"]))
    index = {task: i for i, task in enumerate(tasks)}
    weights = task_weights(len(tasks), replicates, seed)
    stab_groups = dict(iter(stability.groupby(list(PROFILE_KEYS)))) if len(stability) else {}
    rows = []
    for key, group in runs.groupby(list(PROFILE_KEYS), sort=True):
        row = dict(zip(PROFILE_KEYS, key))
        row.update(noise=float(group["noise"].iloc[0]), n_support=int(group["n_support"].iloc[0]),
                   tasks=int(group["task"].nunique()), runs=len(group))  # fmt: skip
        stab = stab_groups.get(key, stability.iloc[0:0])
        per_task_stab = stab.dropna(subset=["stab"]).groupby("task")["stab"].mean() if len(stab) else pd.Series(dtype=float)
        for axis in AXES:
            if axis == "stab":
                sums, counts = _per_task(pd.Series(per_task_stab.index), pd.Series(per_task_stab.to_numpy()), index)
            else:
                sums, counts = _per_task(group["task"], group[axis], index)
            total = counts.sum()
            low, high = interval(weights, sums, counts) if total else (np.nan, np.nan)
            row[axis] = SCALE * sums.sum() / total if total else np.nan
            row[f"{axis}_low"], row[f"{axis}_high"] = SCALE * low, SCALE * high
        row["notes"] = "; ".join(_notes(group, stab))
        rows.append(row)
    return pd.DataFrame(rows)


def robustness(table: pd.DataFrame) -> pd.DataFrame:
    """Each axis at every noise level and its change from clean (noise 0), per method, budget and
    support size with more than one noise level; empty when no such group exists."""
    rows = []
    for (method, budget, n_support), group in table.groupby(["method", "budget", "n_support"], sort=True):
        levels = sorted(group["noise"].unique())
        if len(levels) < 2:
            continue
        by_noise = group.set_index("noise")
        row = {"method": method, "budget": budget, "n_support": n_support}
        for axis in AXES:
            for level in levels:
                row[f"{axis}@{level:g}"] = by_noise.loc[level, axis]
            if 0.0 in levels:
                for level in levels[1:] if levels[0] == 0.0 else levels:
                    row[f"{axis}_change@{level:g}"] = by_noise.loc[level, axis] - by_noise.loc[0.0, axis]
        rows.append(row)
    return pd.DataFrame(rows)
