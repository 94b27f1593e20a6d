"""What a run reports: the progress bar while it runs, and the ``RunSummary`` when it ends."""

from __future__ import annotations

import os
import sys
from collections import Counter
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
        lines.append(f"results: {self.store}")
        return "\n".join(lines)


def _plural(status: str) -> str:
    return {"timeout": "timeouts", "placeholder": "placeholders"}.get(status, status)


def progress_bar(total: int, experiment: str, show: bool):
    """A tqdm bar on stderr: fits done of ``total``, rate, time left; ``show=False`` disables it."""
    import shutil

    from tqdm import tqdm

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
