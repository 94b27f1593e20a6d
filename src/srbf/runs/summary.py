"""What a run reports: the progress bar while it runs, the ``RunSummary`` when it ends, and the
reasons fits failed, grouped (``failure_groups``: what ``srbf run`` ends with and ``srbf status`` shows)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from srbf.core import STATUSES


@dataclass
class RunSummary:
    """What a run did. ``recorded`` fits were stored by this run, ``skipped`` were stored before."""

    experiment: str
    store: Path
    planned: int = 0
    skipped: int = 0
    pending: int = 0  # fits this run set out to do
    statuses: Counter = field(default_factory=Counter)  # recorded fits by status
    interrupted: bool = False
    seconds: float = 0.0
    workers: int = 0
    campaigns: dict[str, int] = field(default_factory=dict)  # variant label -> campaign id
    notes: list[str] = field(default_factory=list)
    resume_hint: str = "run the same config again"
    not_ok: list[tuple] = field(default_factory=list, repr=False)  # (label, status, error, where) per fit

    @property
    def recorded(self) -> int:
        return sum(self.statuses.values())

    @property
    def ok(self) -> int:
        return self.statuses["ok"]

    @property
    def failed(self) -> int:
        return self.statuses["failed"]

    @property
    def timeouts(self) -> int:
        return self.statuses["timeout"]

    @property
    def crashed(self) -> int:
        return self.statuses["crashed"]

    @property
    def placeholders(self) -> int:
        return self.statuses["placeholder"]

    @property
    def failures(self) -> list[FailureGroup]:
        """This run's fits that were not ok, grouped by method, status and reason (``failure_groups``)."""
        return failure_groups(self.not_ok)

    @property
    def unfinished(self) -> int:
        return self.pending - self.recorded

    def text(self) -> str:
        """A few lines for the terminal."""
        parts = ", ".join(f"{self.statuses[s]} {_plural(s)}" for s in STATUSES)
        lines = [
            f"{self.experiment}: {self.recorded} of {self.pending} fit(s) recorded in {self.seconds:.1f} s "
            f"({parts}); {self.skipped} already stored, skipped"
        ]
        if self.interrupted:
            lines.append(
                f"interrupted: every finished fit is kept; {self.unfinished} fit(s) were in flight or not "
                f"started and were not recorded. To resume: {self.resume_hint} (stored fits are skipped)"
            )
        lines += failure_lines(self.failures)
        lines.append(f"results: {self.store}")
        return "\n".join(lines)


@dataclass
class FailureGroup:
    """Fits of one method that ended alike: the same status and the same first line of the reason."""

    method: str
    status: str
    reason: str  # the first line of the error ("" when the method gave none)
    count: int
    first: str  # where the first of them happened: set/problem, draw, budget


def failure_groups(failures: Iterable[tuple[str, str, str | None, str]]) -> list[FailureGroup]:
    """``(method, status, error, where)`` of fits that were not ok, grouped by method, status and
    the error's first line; the largest groups first, each with where its first fit was."""
    groups: dict[tuple[str, str, str], FailureGroup] = {}
    for method, status, error, where in failures:
        lines = str(error or "").strip().splitlines()
        reason = lines[0].strip() if lines else ""
        group = groups.setdefault((method, status, reason), FailureGroup(method, status, reason, 0, where))
        group.count += 1
    return sorted(groups.values(), key=lambda g: (-g.count, g.method, g.status, g.reason))


def failure_lines(groups: list[FailureGroup], limit: int = 10) -> list[str]:
    """The grouped reasons as lines for the terminal (at most ``limit`` groups, then how many more)."""
    if not groups:
        return []
    total = sum(g.count for g in groups)
    lines = [f"why {total} fit(s) were not ok (count, status, first fit, first line of the reason):"]
    for g in groups[:limit]:
        lines.append(f"  {g.method}: {g.count} {g.status} (first: {g.first}): {g.reason or 'no reason given'}")
    if len(groups) > limit:
        lines.append(f"  ... and {len(groups) - limit} more group(s): srbf export --status failed -o failed.csv lists every fit")
    return lines


def _plural(status: str) -> str:
    return {"timeout": "timeouts", "placeholder": "placeholders"}.get(status, status)


def progress_bar(total: int, experiment: str, show: bool):
    """A tqdm bar on stderr: fits done of ``total``, rate, time left; ``show=False`` disables it.
    In Jupyter it is ``tqdm.auto``'s widget when ipywidgets is installed, else the same text bar."""
    import shutil
    import warnings

    with warnings.catch_warnings():  # tqdm.auto in a kernel without ipywidgets: it says so, and falls back to text
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
        sized = size.columns > 0 and size.lines > 0
    except (OSError, ValueError):
        sized = False
    return tqdm(
        total=total,
        desc=experiment,
        unit="fit",
        file=sys.stderr,
        disable=not show,
        dynamic_ncols=sized,  # a terminal that reports no size (some ptys) gets COLUMNS or 80 x 24
        ncols=None if sized else shutil.get_terminal_size((80, 24)).columns,
        nrows=None if sized else 24,
        smoothing=0.1,
    )


def fit_place(key) -> str:
    """Where a fit ran, for a failure line: ``set/problem draw D, budget B``."""
    return f"{key.catalog}/{key.problem_id} draw {key.draw}, budget {key.budget:g}"
