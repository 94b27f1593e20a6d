"""Where the results are read: at the declared time marks, or at each method's largest budget.

One function, :func:`choose_reading`, decides it for every command that gives verdicts (``srbf
analyze``, ``compare``, ``site build``, ``arena score``), so they cannot disagree about where they
read. A reading asked for (``--at-budget max``, ``--at-seconds T``) is taken as asked. Otherwise it
is chosen from the data: the time marks when at least one of them lies within every method's
measured times (each method measured or interpolated there, none carried forward or unable to run),
else each method's largest budget. A study whose fits all end below the first mark would otherwise
read every method "max tested" and decide nothing.

The times are the analysis' own (``srbf.stats.timeaxis.ladder_times`` over the frame, or a timing
readout's ``time_axis``), so the choice agrees with the statuses the analysis gives each mark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srbf.stats.timeaxis import DECLARED_TIMES, ladder_times
from srbf.stats.errors import StatsError

AT_BUDGETS = ("max",)


@dataclass(frozen=True)
class Reading:
    """A reading: ``axis`` "time" (at ``times``) or "max_budget" (every method at its own largest
    complete budget); ``chosen`` "asked" or "data"; ``reason`` says why, in words."""

    axis: str
    times: tuple[float, ...]
    chosen: str
    reason: str

    @property
    def at_budget(self) -> str | None:
        return "max" if self.axis == "max_budget" else None

    @property
    def label(self) -> str:
        if self.axis == "max_budget":
            return "each method's largest budget"
        return "the time marks " + ", ".join(f"{t:g}" for t in self.times) + " s"

    @property
    def line(self) -> str:
        """The line every command prints: which reading, and why."""
        other = ("--at-seconds T reads at time marks" if self.axis == "max_budget"
                 else "--at-budget max reads each method at its largest budget")
        how = "as asked" if self.chosen == "asked" else "chosen from the data"
        return f"reading at {self.label} ({how}: {self.reason}); {other}"

    def to_dict(self) -> dict:
        return {"axis": self.axis, "times": list(self.times), "chosen": self.chosen, "reason": self.reason,
                "label": self.label, "line": self.line}


def measured_times(frame: pd.DataFrame, time_axis: pd.DataFrame | None = None) -> pd.DataFrame:
    """(method, budget, seconds): each method's time per budget, as ``srbf.stats.analyze`` places
    it (the median seconds of its usable fits, or ``time_axis`` when given). Untimed budgets are left out."""
    if time_axis is not None:
        table = time_axis[["method", "budget", "seconds"]].copy()
    elif "seconds" not in frame.columns:
        return pd.DataFrame(columns=["method", "budget", "seconds"])
    else:
        from srbf.stats.cube import build_cube

        cube = build_cube(frame, [c for c in ("seconds", "success") if c in frame.columns])
        seconds = ladder_times(cube.columns["seconds"], cube.columns.get("success"))
        table = pd.DataFrame([{"method": m, "budget": float(b), "seconds": seconds[i, j]}
                              for i, m in enumerate(cube.methods) for j, b in enumerate(cube.budgets)
                              if cube.present[i, j].any()])
        if table.empty:
            return pd.DataFrame(columns=["method", "budget", "seconds"])
    table["seconds"] = table["seconds"].astype(float)
    return table[np.isfinite(table["seconds"]) & (table["seconds"] > 0)].reset_index(drop=True)


def choose_reading(frame: pd.DataFrame, *, at_budget: str | None = None, at_seconds=None,
                   times=DECLARED_TIMES, time_axis: pd.DataFrame | None = None) -> Reading:
    """The reading of ``frame``: ``at_budget="max"`` or ``at_seconds`` (time marks) as asked, else
    chosen from the data (module docstring). ``times``: the declared marks when none are asked for.
    StatsError when both are asked for or ``at_budget`` is unknown."""
    if at_budget not in (None, *AT_BUDGETS):
        raise StatsError(f"--at-budget: must be one of {', '.join(AT_BUDGETS)} (every method at its own largest "
                         f"budget), got {at_budget!r}")
    if at_budget is not None and at_seconds:
        raise StatsError("--at-budget and --at-seconds exclude each other: values are read at one or the other")
    if at_budget == "max":
        return Reading("max_budget", (), "asked", "--at-budget max")
    if at_seconds:
        marks = tuple(float(t) for t in at_seconds)
        return Reading("time", marks, "asked", "--at-seconds " + ", ".join(f"{t:g}" for t in marks))
    marks = tuple(float(t) for t in times)
    spans = _spans(frame, measured_times(frame, time_axis))
    timed = len(spans) == frame["method"].astype(str).nunique()
    reached = [t for t in marks if timed and all(low <= t <= high for low, high in spans.values())]
    if reached:
        return Reading("time", marks, "data", "every method's measured times reach "
                       + ", ".join(f"{t:g} s" for t in reached))
    if not timed:
        why = "some method has no measured time"
    else:
        why = "no time mark among " + ", ".join(f"{t:g}" for t in marks) + " s lies within every method's measured times"
    listed = "; ".join(f"{m} {_seconds(lo)}" + ("" if lo == hi else f" to {_seconds(hi)}")
                       for m, (lo, hi) in sorted(spans.items()))
    return Reading("max_budget", (), "data", why + (f" ({listed})" if listed else ""))


def _spans(frame: pd.DataFrame, times: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Each method's (fastest, slowest) measured time; methods without one are left out."""
    spans = {str(m): (float(g["seconds"].min()), float(g["seconds"].max())) for m, g in times.groupby("method")}
    methods = set(frame["method"].astype(str))
    return {m: span for m, span in spans.items() if m in methods}


def _seconds(value: float) -> str:
    return f"{value:.2g} s" if value < 10 else f"{value:.0f} s"
