"""What a scoring pass did: the summary ``score_store`` returns and ``srbf score`` prints.

``ScoreSummary`` counts the rows written (as failures, on targets regenerated here), the rows
skipped (already scored, or scored with another stack), and lists each prediction that could not
be scored with its reason (a ``ScoreFailure``). ``ScoringError`` is a pass that cannot start.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from srbf.core import SrbfError
from srbf.judge.metric_keys import JUDGE_VERSION
from srbf.judge.stack import judge_stack

__all__ = ["TARGETS_DIFFER", "ScoreFailure", "ScoreSummary", "ScoringError"]

TARGETS_DIFFER = "regenerated_targets_differ"  # the metrics flag of a draw scored on this machine's targets


class ScoringError(SrbfError):
    """A scoring pass that cannot start (no store there, a store opened read-only); one line."""


@dataclass(frozen=True)
class ScoreFailure:
    """A prediction the pass could not score (no metrics row was written), and why."""

    prediction_id: int
    reason: str


@dataclass
class ScoreSummary:
    """What a scoring pass did. ``scored`` rows were written by this pass (``as_failures`` of them
    with success 0, ``targets_differ`` of them on targets that differ from the run's);
    ``skipped`` predictions already had metrics of ``judge_version``; ``failed`` could not be
    scored, each with its reason."""

    store: Path
    judge_version: str = JUDGE_VERSION
    scored: int = 0
    as_failures: int = 0
    targets_differ: int = 0
    skipped: int = 0
    failed: list[ScoreFailure] = field(default_factory=list)
    workers: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    stack: dict[str, str] = field(default_factory=judge_stack)  # the libraries this pass scores with
    other_stack: int = 0  # predictions kept with metrics of this judge version from another stack
    other_stack_change: str = ""

    @property
    def ok(self) -> bool:
        """Every prediction has metrics of this judge version now."""
        return not self.failed and not self.interrupted

    def reasons(self) -> dict[str, list[int]]:
        """The reasons predictions could not be scored, each with its prediction ids."""
        grouped: dict[str, list[int]] = defaultdict(list)
        for failure in self.failed:
            grouped[failure.reason].append(failure.prediction_id)
        return dict(grouped)

    def text(self) -> str:
        """A few lines for the terminal."""
        rate = f", {self.scored / self.seconds:.0f}/s" if self.scored and self.seconds > 0 else ""
        lines = [
            f"judge {self.judge_version}: {self.scored} prediction(s) scored in {self.seconds:.1f} s{rate} "
            f"({self.as_failures} as failures); {self.skipped} already scored, skipped"
        ]
        if self.targets_differ:
            lines.append(
                f"warning: {self.targets_differ} prediction(s) scored on targets regenerated here, which differ from "
                "the run's although the inputs are the same (the run's machine rounded its math functions "
                f"differently): their metrics carry {TARGETS_DIFFER} = true"
            )
        if self.other_stack:
            lines.append(
                f"warning: {self.other_stack} prediction(s) keep metrics of judge {self.judge_version} computed with "
                f"another stack ({self.other_stack_change}), skipped; `srbf score --force` re-scores them with this one"
            )
        if self.failed:
            lines.append(f"{len(self.failed)} prediction(s) could not be scored (no metrics written):")
            for reason, ids in self.reasons().items():
                shown = ", ".join(map(str, ids[:8])) + (f", ... ({len(ids)} in all)" if len(ids) > 8 else "")
                lines.append(f"  {reason} [prediction {shown}]")
        if self.interrupted:
            lines.append("interrupted: every metric written so far is kept; run `srbf score` again to finish")
        lines.append(f"results: {self.store}")
        return "\n".join(lines)
