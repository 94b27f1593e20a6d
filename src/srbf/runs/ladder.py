"""One fit, the whole ladder: a method with an exact trajectory is fitted once per ladder.

A method whose method.yaml declares ``exact_trajectory: true`` says that what it reports with
``report(expression, budget=b)`` is what a fit of budget ``b`` returns (the seed does not depend
on the budget: ``srbf.core.key_text``). For such a method (``ladder: one_fit``, the default its
method.yaml gives; ``ladder: separate`` or ``srbf run --separate-ladder`` turn it off) the driver
runs, of each ladder's pending rungs (same key apart from the budget), only the largest
(``one_fit_ladders``), and stores every smaller rung from that fit's budget marks
(``with_rungs``): the incumbent at that budget step, its elapsed time there as the rung's wall
seconds, status ok, ``from_trajectory`` set. CPU seconds and peak memory are not measured per
step: they stay null. A rung the long fit never reached takes the long fit's answer when it ended
ok (the method stopped early, as a fit of that budget would have) and its status otherwise; a fit
that reported no budget marks at all fails its rungs (nothing is made up).

A killed run resumes by key as always: what is stored is skipped, and of the rest each ladder's
largest pending rung is the one fitted. With ``--shard K/N`` the rungs of one ladder may fall in
different shards; each shard then fits the largest of its own share.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

from srbf.core import FitResult, canonical_budget
from srbf.runs.executor import Completed
from srbf.runs.plan import PlannedFit

__all__ = ["one_fit_ladders", "rung_result", "with_rungs"]


def one_fit_ladders(fits: Sequence[PlannedFit]) -> list[PlannedFit]:
    """``fits`` with each one_fit ladder's pending rungs folded into its largest one (its
    ``rungs``), at the place of the ladder's first pending rung; every other fit as it was."""
    out: list[PlannedFit | list[PlannedFit]] = []
    groups: dict = {}
    for fit in fits:
        if fit.variant.method.ladder != "one_fit":
            out.append(fit)
            continue
        group_key = dataclasses.replace(fit.key, budget=0)
        group = groups.get(group_key)
        if group is None:
            group = groups[group_key] = []
            out.append(group)
        group.append(fit)
    folded: list[PlannedFit] = []
    for item in out:
        if isinstance(item, PlannedFit):
            folded.append(item)
            continue
        ordered = sorted(item, key=lambda f: float(f.key.budget))
        folded.append(dataclasses.replace(ordered[-1], rungs=tuple(ordered[:-1])) if len(ordered) > 1 else ordered[0])
    return folded


def rung_result(result: FitResult, long_budget: float, budget: float) -> FitResult:
    """The result of the rung at ``budget`` read from ``result``, the fit at ``long_budget``."""
    marks = {canonical_budget(b): (seconds, expression) for b, seconds, expression in result.marks}
    mark = marks.get(canonical_budget(budget))
    internals = {"ladder_fit_budget": canonical_budget(long_budget)}
    if mark is not None:
        seconds, expression = mark
        status, error = "ok", None
    elif not result.marks and result.status == "ok":  # ended ok without one report(expr, budget=b): never made up
        seconds, expression, status = result.wall_seconds, None, "failed"
        error = (f"ladder: one_fit, but the fit at budget {canonical_budget(long_budget)} reported no budget "
                 "marks (report(expression, budget=b)), so this budget cannot be read from it; use ladder: separate")
    elif result.status == "ok":  # stopped before this budget, as a fit of this budget would have
        seconds, expression, status, error = result.wall_seconds, result.expression, "ok", None
        internals["ladder_stopped_before"] = True
    else:
        seconds, expression, status = result.wall_seconds, None, result.status
        error = (f"the ladder's fit at budget {canonical_budget(long_budget)} ended {result.status} before "
                 f"budget {canonical_budget(budget)} was reached: {result.error or ''}").rstrip(": ")
    trajectory = [row for row in result.trajectory if seconds is None or row[0] <= seconds]
    return FitResult(status=status, expression=expression, error=error, wall_seconds=seconds, internals=internals,
                     trajectory=trajectory, from_trajectory=True)


def with_rungs(batch: Iterable[Completed]) -> list[Completed]:
    """``batch`` with, after each fit that carries rungs, one record per rung (``rung_result``)."""
    out: list[Completed] = []
    for done in batch:
        out.append(done)
        for rung in done.fit.rungs:
            result = rung_result(done.result, done.fit.key.budget, rung.key.budget)
            out.append(Completed(rung, result, done.data_hash, done.inputs_hash))
    return out
