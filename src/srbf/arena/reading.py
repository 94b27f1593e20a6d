"""Which rows of the profile ``profile.md`` and the radar figures show: the reading every verdict
command uses (``srbf.stats.reading.choose_reading``: asked for, or chosen from the data).

The arena's axes are per run, scored at each budget; they are not interpolated in time. So at a
time mark T each method stands at its largest budget whose measured time (median seconds of its
``ok`` runs over every condition) is at most T, and is left out where even its cheapest budget
is slower (it cannot run within T); at "each method's largest budget", at that budget in every
condition. ``profile.csv`` keeps every budget.
"""

from __future__ import annotations

import pandas as pd

from srbf.stats.reading import Reading, choose_reading

__all__ = ["arena_reading", "read_profile", "run_times"]


def run_times(runs: pd.DataFrame) -> pd.DataFrame:
    """(method, budget, seconds): the median wall seconds of each method's ``ok`` runs per budget."""
    ok = runs[(runs["status"] == "ok") & runs["seconds"].notna()] if "seconds" in runs else runs.iloc[0:0]
    if ok.empty:
        return pd.DataFrame(columns=["method", "budget", "seconds"])
    return ok.groupby(["method", "budget"], as_index=False)["seconds"].median()


def arena_reading(runs: pd.DataFrame, *, at_budget: str | None = None, at_seconds=None) -> Reading:
    """The reading of the arena's runs, by the one rule (``srbf.stats.reading.choose_reading``)."""
    return choose_reading(runs[["method"]], at_budget=at_budget, at_seconds=at_seconds, time_axis=run_times(runs))


def read_profile(table: pd.DataFrame, runs: pd.DataFrame, reading: Reading) -> pd.DataFrame:
    """The profile rows at ``reading``, with a column ``mark`` (the mark's label)."""
    if table.empty:
        return table.assign(mark=[])
    if reading.axis == "max_budget":
        largest = table.groupby("method")["budget"].transform("max")
        return table[table["budget"] == largest].assign(mark=reading.label).reset_index(drop=True)
    times = run_times(runs)
    parts = []
    for t in reading.times:
        within = times[times["seconds"] <= t].groupby("method")["budget"].max()
        rows = table[table["budget"] == table["method"].map(within)]
        parts.append(rows.assign(mark=f"{t:g} s"))
    return pd.concat(parts, ignore_index=True) if parts else table.iloc[0:0].assign(mark=[])
