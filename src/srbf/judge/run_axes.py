"""The five per-run axes of one prediction (ID, OOD, SYM, MIN, EFF), on its drawn problem's points.

``evaluate_run`` reads one stored prediction as SymbolicArena does (``RunEvaluation``): whether
it is valid (the judge's record), the final formula's NMSE on the validation points (ID) and on
the out-of-range points (OOD), its judgment against the truth (``arena_judgments``), and the NMSE
of the incumbent at each checkpoint of its stored trajectory (``checkpoints``). ``axis_metrics``
turns that into the five values with the formulas of ``judge.axes``. The same two functions serve
both passes: ``add_axes`` is the scoring pass's step that stores the values with the judge's
metrics (``AXIS_KEYS``: what ``srbf analyze``, the report and the site read), and
``arena_problem.evaluate_problem`` gives them to ``srbf arena score``.

Undefined is None, never 0: OOD of a run without out-of-range points, EFF of a run without any
reported incumbent or without a checkpoint grid. A failed fit (also one the driver recorded
without running it) scores 0 on ID, SYM, MIN and, when the problem has out-of-range points, OOD;
its EFF comes from its trajectory like any run's.

NMSE conventions: ``inf`` for a formula that does not parse or gives a non-finite value at any
point of the set (quality 0), NaN for a checkpoint before the first report (unavailable). Each
distinct expression text is parsed and evaluated once per problem, however many checkpoints and
predictions carry it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.parser import ParseError, parse
from srbf.judge.arena_judgments import TruthJudgment, truth_judgment
from srbf.judge.axes import eff_score, min_score, quality, sym_score
from srbf.judge.checkpoints import campaign_grid, incumbents_at
from srbf.judge.fit import Target
from srbf.judge.formula_facts import FormulaFacts, describe
from srbf.judge.metric_keys import AXIS_KEYS
from srbf.judge.problem_scoring import HINT_KEYS, DrawnProblem, Outcome, StoredPrediction
from srbf.judge.scoring import Judge

if TYPE_CHECKING:
    from srbf.store import ResultsStore

__all__ = ["ProblemPoints", "RunEvaluation", "add_axes", "axis_inputs", "axis_metrics", "evaluate_run"]


@dataclass(frozen=True)
class RunEvaluation:
    """One prediction as the arena reads it (NMSE: inf invalid, NaN unavailable; OOD None: no points)."""

    prediction_id: int
    valid: bool
    nmse_id: float
    nmse_ood: float | None
    symbolic: TruthJudgment
    checkpoint_id: tuple[float, ...] = ()
    checkpoint_ood: tuple[float, ...] | None = None
    trajectory_steps: int = 0


class ProblemPoints:
    """A drawn problem's evaluation sets, and each expression text's tree and NMSE on them, computed once."""

    def __init__(self, problem: Any, variables: tuple[str, ...], target: str | None, t_id: Target | None = None):
        """``t_id``: the validation targets already prepared (the judge's), else prepared here."""
        self.variables, self.target = variables, target
        self.X_id, self.t_id = problem.X_validation, t_id if t_id is not None else Target(problem.y_validation)
        X_ood = getattr(problem, "X_ood", None)
        self.has_ood = X_ood is not None and len(X_ood) > 0
        self.X_ood = X_ood if self.has_ood else None
        self.t_ood = Target(problem.y_ood) if self.has_ood else None
        self.ood_missing = None if self.has_ood else (getattr(problem, "ood_reason", None)
                                                      or "the run drew no out-of-range points")  # fmt: skip
        self._trees: dict[tuple, Any] = {}
        self._functions: dict[tuple, Any] = {}
        self._nmse: dict[tuple, tuple[float, float | None]] = {}
        self._id: dict[tuple, float] = {}  # the judge's validation FVU: the ID NMSE, already computed

    def remember(self, text: str, hints: Any, tree: Any, function: Any, fvu_validation: float) -> None:
        """``text``'s tree and compiled function as the judge read them (the same parse), and its
        FVU on the validation points (this ID set, these targets), so that they are not parsed,
        compiled and evaluated again here."""
        key = (text, _hint_key(hints))
        self._trees.setdefault(key, tree)
        self._functions.setdefault(key, function)
        self._id.setdefault(key, fvu_validation)

    def tree(self, text: str, hints: Any) -> Any:
        """The parsed tree of ``text`` (with the method's parse hints), or None when it does not parse."""
        key = (text, _hint_key(hints))
        if key not in self._trees:
            options = {k: hints[k] for k in HINT_KEYS if k in hints} if isinstance(hints, Mapping) else {}
            try:
                self._trees[key] = parse(text, self.variables, target=self.target, **options)
            except (ParseError, ValueError, TypeError, RecursionError):
                self._trees[key] = None
        return self._trees[key]

    def nmse(self, text: str | None, hints: Any) -> tuple[float, float | None]:
        """(NMSE on the validation points, on the OOD points or None without them); inf when invalid."""
        if text is None:
            return math.inf, (math.inf if self.has_ood else None)
        key = (text, _hint_key(hints))
        if key not in self._nmse:
            function = self._functions.get(key)
            if function is None:
                tree = self.tree(text, hints)
                try:
                    function = compile_expr(tree, self.variables) if tree is not None else None
                except (Exception, RecursionError):  # noqa: BLE001 - any failure is the formula's
                    function = None
            nmse_id = self._id[key] if key in self._id else self._on(function, self.X_id, self.t_id)
            self._nmse[key] = (nmse_id, self._on(function, self.X_ood, self.t_ood) if self.has_ood else None)
        return self._nmse[key]

    @staticmethod
    def _on(function: Any, X: np.ndarray, target: Target) -> float:
        if function is None:
            return math.inf
        try:
            with np.errstate(all="ignore"):
                values = function(X)
        except (Exception, RecursionError):  # noqa: BLE001 - any failure is the formula's
            return math.inf
        if not np.isfinite(values).all():
            return math.inf
        return float(target.fvu(values))


def _hint_key(hints: Any) -> tuple:
    if not hints:  # the common case (no parse hints), without the Mapping check
        return ()
    return tuple(sorted((str(k), str(v)) for k, v in hints.items())) if isinstance(hints, Mapping) else ()


def axis_inputs(
    store: ResultsStore, ids: Collection[int], campaigns: Sequence[Any]
) -> tuple[dict[int, tuple], dict[int, tuple | str]]:
    """What EFF needs of the store for the predictions ``ids``: each one's reported (seconds,
    expression) steps in the order reported, and each of ``campaigns``' (``campaign_rows``)
    checkpoint times (``campaign_grid``; () when its config gives no time limit, a one-line
    message when its ``run.checkpoints`` is bad)."""
    steps: dict[int, list] = defaultdict(list)
    for pid, _, seconds, expression in store.trajectory_rows():
        if pid in ids:
            steps[pid].append((None if seconds is None else float(seconds), str(expression)))
    grids: dict[int, tuple | str] = {}
    for row in campaigns:
        try:
            grids[int(row.id)] = campaign_grid(row.config)[0] or ()
        except ValueError as error:
            grids[int(row.id)] = f"campaign {row.id} ({row.name}): {error}"
    return {pid: tuple(s) for pid, s in steps.items()}, grids


def evaluate_run(
    p: StoredPrediction, record: Mapping[str, Any], judge: Judge | None, points: ProblemPoints
) -> tuple[RunEvaluation, tuple[Any, FormulaFacts] | None]:
    """``p`` read for the axes, given the judge's ``record`` of it (``judge`` may be None when the
    record is a failure); with the final formula's (tree, facts) when it is valid, else None."""
    text = p.expression if p.status == "ok" else None
    # the judge read this text the same way (no parse hints: parsed with the entry's target)
    known = judge.reading(text) if judge is not None and text is not None and p.hints in (None, {}) else None
    if known is not None and record.get("success"):
        points.remember(text, p.hints, known.tree, known.function, known.record["fvu_validation"])
    tree = points.tree(text, p.hints) if text is not None and record.get("success") else None
    valid = tree is not None and judge is not None
    facts = None
    if valid:
        facts = known.facts if known is not None and known.facts is not None else describe(
            tree, len(points.variables), judge.canonical_time_limit, judge.positive)  # fmt: skip
    nmse_id, nmse_ood = points.nmse(text, p.hints) if valid else (math.inf, math.inf if points.has_ood else None)
    incumbents = incumbents_at(p.steps, p.checkpoints) if p.steps else []
    reached = {e: points.nmse(e, p.hints) for e in set(incumbents) if e is not None}
    reached[None] = (math.nan, math.nan if points.has_ood else None)  # before the first report: unavailable
    evaluation = RunEvaluation(
        prediction_id=p.id,
        valid=valid,
        nmse_id=nmse_id,
        nmse_ood=nmse_ood,
        symbolic=truth_judgment(record if valid else {**record, "success": 0}, facts,
                                judge.truth_formula if valid else None),  # fmt: skip
        checkpoint_id=_at(incumbents, reached, 0),
        checkpoint_ood=_at(incumbents, reached, 1) if points.has_ood else None,
        trajectory_steps=len(p.steps),
    )
    return evaluation, ((tree, facts) if valid else None)


def _at(incumbents: list[str | None], reached: dict[str | None, tuple], i: int) -> tuple[float, ...]:
    """Each checkpoint's NMSE (``i`` 0: ID, 1: OOD), its incumbent's looked up (a run has few)."""
    return tuple(map({e: nmse[i] for e, nmse in reached.items()}.__getitem__, incumbents))


def axis_metrics(e: RunEvaluation) -> dict[str, float | None]:
    """The five per-run axes of ``e`` on [0, 1], keyed as stored (``AXIS_KEYS``); None where a run
    has no value: OOD without out-of-range points, EFF without a reported incumbent or a grid."""
    j = e.symbolic
    values = (
        quality(e.nmse_id) if e.valid else 0.0,
        None if e.nmse_ood is None else (quality(e.nmse_ood) if e.valid else 0.0),
        sym_score(j.equivalent, e.valid, j.tree_similarity, j.variable_f1, j.operator_f1),
        min_score(j.size_truth, j.size_prediction, e.valid),
        eff_score(e.checkpoint_id, e.checkpoint_ood) if e.trajectory_steps else None,
    )
    return dict(zip(AXIS_KEYS, values))


def add_axes(work: DrawnProblem, problem: Any, judge: Judge | None, outcomes: list[Outcome]) -> list[Outcome]:
    """The scoring pass's step: ``outcomes`` of ``work``'s predictions with the five axes added to
    each metrics record (placeholders and unscorable predictions as they are). A failure here makes
    that prediction unscorable, with the reason, as a failure of the judge does."""
    runs = {p.id: p for p in work.predictions if p.status != "placeholder"}
    points = ProblemPoints(problem, tuple(work.entry.variable_names), work.entry.target,
                           judge.validation_target if judge is not None else None)  # fmt: skip
    out: list[Outcome] = []
    for pid, metrics, reason in outcomes:
        if metrics is not None and pid in runs:
            try:
                metrics.update(axis_metrics(evaluate_run(runs[pid], metrics, judge, points)[0]))
            except Exception as error:  # noqa: BLE001 - one prediction's bug must not lose the others
                out.append((pid, None, f"{work.where}: the arena axes failed: {type(error).__name__}: {error}"))
                continue
        out.append((pid, metrics, reason))
    return out
