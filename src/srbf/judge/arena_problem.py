"""What the arena needs of one drawn problem's predictions, computed on its regenerated points.

``evaluate_problem`` regenerates a ``DrawnProblem``'s points (through the runner's
``ProblemSource``, as the scoring pass does), checks them against each prediction's stored hashes
with the scoring pass's rule (``problem_scoring.refusal``: a fit that never ran is a failed run,
not a skipped one), judges each final formula (``Judge.score``) and reads each prediction for the
axes with ``run_axes.evaluate_run``, the function the scoring pass uses for the stored axis
metrics. The pairs of predictions the caller names (repeats of one fit) get a ``pair_judgment``.
Placeholders are left out: the statistics leave them out too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from srbf.catalogs.admission import parse_entry
from srbf.judge.arena_judgments import PairJudgment, pair_judgment
from srbf.judge.problem_scoring import DrawnProblem, load_catalog, refusal
from srbf.judge.run_axes import ProblemPoints, RunEvaluation, evaluate_run
from srbf.judge.scoring import Judge
from srbf.judge.truth_facts import entry_key, shipped_truth
from srbf.runs.problems import ProblemSource

__all__ = ["ProblemEvaluation", "evaluate_problem"]

_source = ProblemSource(cache_size=1)


@dataclass
class ProblemEvaluation:
    """A problem's evaluations, its pair judgments, why OOD is missing (if it is), and the
    predictions it could not evaluate, each with the reason."""

    runs: dict[int, RunEvaluation] = field(default_factory=dict)
    pairs: dict[tuple[int, int], PairJudgment] = field(default_factory=dict)
    ood_missing: str | None = None
    unscorable: dict[int, str] = field(default_factory=dict)


def evaluate_problem(work: DrawnProblem, pairs: Sequence[tuple[int, int]] = ()) -> ProblemEvaluation:
    """Evaluate ``work``'s predictions (each carries its trajectory and checkpoint times) and
    judge the ``pairs`` of prediction ids."""
    from srbf.judge.data import positive_variables

    out = ProblemEvaluation()
    real = [p for p in work.predictions if p.status != "placeholder"]
    if not real:
        return out
    try:
        catalog = load_catalog(work.ref)
        entry = catalog.entry(work.problem_id)
        positive = positive_variables(entry.variables)
        truth, facts = shipped_truth(catalog.name, entry_key(entry.formula, entry.variable_names, positive)) or (None, None)
        problem = _source.draw(
            entry, catalog=catalog.name, catalog_version=catalog.version, seed=work.seed, draw=work.draw,
            n_support=work.n_support, noise=work.noise, n_validation=work.n_validation, ood=work.ood, tree=truth,
        )  # fmt: skip
        if problem.is_placeholder:
            raise ValueError(problem.placeholder_reason)
        judge = Judge(parse_entry(entry) if truth is None else truth, problem, variables=entry.variable_names,
                      target=entry.target, positive=positive, truth_facts=facts)  # as the scoring pass reads it
    except Exception as error:  # noqa: BLE001 - reported per prediction; the other problems go on
        out.unscorable = {p.id: f"{work.where}: cannot regenerate the points: {error}" for p in real}
        return out
    points = ProblemPoints(problem, tuple(entry.variable_names), entry.target)
    out.ood_missing = points.ood_missing
    finals: dict[int, tuple[Any, Any]] = {}  # id -> (tree, facts) of each valid final formula
    for p in real:
        refused = refusal(p, problem)
        if refused is not None:
            out.unscorable[p.id] = f"{work.where}: {refused}"
            continue
        try:
            out.runs[p.id], final = evaluate_run(p, _judged(p, judge, points), judge, points)
            if final is not None:
                finals[p.id] = final
        except Exception as error:  # noqa: BLE001 - a judge bug on one prediction must not lose the others
            out.unscorable[p.id] = f"{work.where}: the judge failed: {type(error).__name__}: {error}"
    for a, b in pairs:
        if a in out.runs and b in out.runs:
            try:
                out.pairs[(a, b)] = _pair(a, b, finals, judge, points)
            except Exception as error:  # noqa: BLE001 - as for a run: say so, count the pair as not the same
                out.pairs[(a, b)] = PairJudgment(False, "undetermined", f"the judge failed: {type(error).__name__}: {error}")
    return out


def _judged(p: Any, judge: Judge, points: ProblemPoints) -> dict[str, Any]:
    """The judge's record of ``p``'s final formula, or a failure record saying why there is none."""
    if p.status != "ok":
        return Judge.failure_record(f"{p.status}: {p.error}" if p.error else p.status)
    tree = points.tree(p.expression, p.hints) if p.expression is not None else None
    if tree is None:
        return Judge.failure_record("no formula" if p.expression is None else "does not parse")
    return judge.score(tree)


def _pair(a: int, b: int, finals: dict, judge: Judge, points: ProblemPoints) -> PairJudgment:
    missing = [str(i) for i in (a, b) if i not in finals]
    if missing:
        return PairJudgment(False, "invalid", f"prediction {' and '.join(missing)} has no valid formula")
    y = judge.data.y_validation
    peak = float(np.max(np.abs(y)))
    scale = peak * float(np.sqrt(np.mean(np.square(y / peak)))) if peak > 0 else 0.0  # RMS without overflow
    return pair_judgment(finals[a], finals[b], points.variables, judge.data.X_support, scale)
