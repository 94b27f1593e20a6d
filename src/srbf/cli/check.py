"""``srbf check``: the run check of ``srbf.runs.check`` with the judge as its last step.

The check's steps up to evaluating the formula belong to ``runs``; scoring it needs the judge, a
layer above, so the two meet here. ``run_check(path)`` is what ``srbf check`` prints and what
the test ``srbf methods new`` writes asserts (``report.ok``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

__all__ = ["judge_score", "run_check"]


def judge_score(plan_fit, problem, expression: str) -> str:
    """The check's score step: the judge's numeric metrics of ``expression`` on the check's problem."""
    from srbf.judge import Judge

    metrics = Judge(plan_fit.entry.formula, problem, variables=tuple(problem.variables), numeric_only=True).score(
        expression
    )
    if not metrics.get("success"):
        return f"scored as a failed prediction: {metrics.get('failure_reason')}"
    return (f"FVU support {metrics['fvu_support']:.3g}, validation {metrics['fvu_validation']:.3g}, "
            f"R2 validation {metrics['r2_validation']:.4f}")


def run_check(path: str | Path, *, out: Callable[[str], None] | None = None, allow_large: bool = False):
    """Check the config at ``path`` step by step, scoring with the judge; returns a ``CheckReport``."""
    from srbf.runs.check import run_check as check_steps

    return check_steps(path, out=out, allow_large=allow_large, score=judge_score)
