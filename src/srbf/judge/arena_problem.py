"""What the arena needs of one drawn problem's predictions, computed on its regenerated points.

``evaluate_problem`` regenerates a ``DrawnProblem``'s points (through the runner's
``ProblemSource``, as the scoring pass does), checks them against each prediction's stored hashes,
and gives per prediction (``RunEvaluation``): the final formula's NMSE (FVU) on the validation
points (SymbolicArena's ID test set) and on the out-of-range points when the run drew them (OOD),
its judgment against the truth (``arena_judgments.truth_judgment``, from ``Judge.score``), and the
NMSE of the incumbent at each checkpoint of its stored trajectory (``checkpoints``). The pairs of
predictions the caller names (repeats of one fit) get a ``pair_judgment``.

NMSE conventions: ``inf`` for a formula that does not parse or gives a non-finite value at any
point of the set (its quality is 0), NaN for a checkpoint before the first report (unavailable).
Each distinct expression text is parsed and evaluated once per problem, however many checkpoints
and predictions carry it. Placeholders are left out: the statistics leave them out too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.parser import ParseError, parse
from srbf.judge.arena_judgments import PairJudgment, TruthJudgment, pair_judgment, truth_judgment
from srbf.judge.checkpoints import incumbents_at
from srbf.judge.fit import Target
from srbf.judge.formula_facts import describe
from srbf.judge.problem_scoring import HINT_KEYS, DrawnProblem, StoredPrediction, load_catalog
from srbf.judge.scoring import Judge
from srbf.runs.problems import ProblemSource

__all__ = ["ProblemEvaluation", "RunEvaluation", "evaluate_problem"]

_source = ProblemSource(cache_size=1)


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


@dataclass
class ProblemEvaluation:
    """A problem's evaluations, its pair judgments, why OOD is missing (if it is), and the
    predictions it could not evaluate, each with the reason."""

    runs: dict[int, RunEvaluation] = field(default_factory=dict)
    pairs: dict[tuple[int, int], PairJudgment] = field(default_factory=dict)
    ood_missing: str | None = None
    unscorable: dict[int, str] = field(default_factory=dict)


class _Points:
    """A problem's evaluation sets, and each expression text's tree and NMSE on them, computed once."""

    def __init__(self, problem: Any, variables: tuple[str, ...], target: str | None):
        self.variables, self.target = variables, target
        self.X_id, self.t_id = problem.X_validation, Target(problem.y_validation)
        X_ood = getattr(problem, "X_ood", None)
        self.has_ood = X_ood is not None and len(X_ood) > 0
        self.X_ood = X_ood if self.has_ood else None
        self.t_ood = Target(problem.y_ood) if self.has_ood else None
        self._trees: dict[tuple, Any] = {}
        self._nmse: dict[tuple, tuple[float, float | None]] = {}

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
            tree = self.tree(text, hints)
            self._nmse[key] = (self._on(tree, self.X_id, self.t_id),
                               self._on(tree, self.X_ood, self.t_ood) if self.has_ood else None)  # fmt: skip
        return self._nmse[key]

    def _on(self, tree: Any, X: np.ndarray, target: Target) -> float:
        if tree is None:
            return math.inf
        try:
            with np.errstate(all="ignore"):
                values = compile_expr(tree, self.variables)(X)
        except (Exception, RecursionError):  # noqa: BLE001 - any failure is the formula's
            return math.inf
        if not np.all(np.isfinite(values)):
            return math.inf
        return float(target.fvu(values))


def _hint_key(hints: Any) -> tuple:
    return tuple(sorted((str(k), str(v)) for k, v in hints.items())) if isinstance(hints, Mapping) else ()


def _refusal(p: StoredPrediction, problem: Any) -> str | None:
    """Why ``p`` was not fitted on these points (its stored hashes differ), or None. A fit that
    did not end ``ok`` and stored no hash never got its points (the driver stopped the method
    before it ran): it is a failed run of this problem, not a run on other points."""
    if p.data_hash == problem.data_hash or (p.inputs_hash and p.inputs_hash == problem.inputs_hash):
        return None
    if p.status != "ok" and not p.data_hash and not p.inputs_hash:
        return None
    return "its stored data hash does not match the regenerated points (run `srbf score` for the details)"


def evaluate_problem(
    work: DrawnProblem,
    trajectories: Mapping[int, Sequence[tuple[float | None, str]]],
    times: Mapping[int, Sequence[float]],
    pairs: Sequence[tuple[int, int]] = (),
) -> ProblemEvaluation:
    """Evaluate ``work``'s predictions (their trajectories' ``(seconds, expression)`` steps and
    checkpoint ``times`` by prediction id) and judge the ``pairs`` of prediction ids."""
    from srbf.judge.data import positive_variables

    out = ProblemEvaluation()
    real = [p for p in work.predictions if p.status != "placeholder"]
    if not real:
        return out
    try:
        catalog = load_catalog(work.ref)
        entry = catalog.entry(work.problem_id)
        problem = _source.draw(
            entry, catalog=catalog.name, catalog_version=catalog.version, seed=work.seed, draw=work.draw,
            n_support=work.n_support, noise=work.noise, n_validation=work.n_validation, ood=work.ood,
        )  # fmt: skip
        if problem.is_placeholder:
            raise ValueError(problem.placeholder_reason)
        judge = Judge(entry.formula, problem, variables=entry.variable_names, target=entry.target,
                      positive=positive_variables(entry.variables))  # fmt: skip
    except Exception as error:  # noqa: BLE001 - reported per prediction; the other problems go on
        out.unscorable = {p.id: f"{work.where}: cannot regenerate the points: {error}" for p in real}
        return out
    points = _Points(problem, tuple(entry.variable_names), entry.target)
    if not points.has_ood:
        out.ood_missing = getattr(problem, "ood_reason", None) or "the run drew no out-of-range points"
    finals: dict[int, tuple[Any, Any]] = {}  # id -> (tree, facts) of each valid final formula
    for p in real:
        refused = _refusal(p, problem)
        if refused is not None:
            out.unscorable[p.id] = f"{work.where}: {refused}"
            continue
        try:
            out.runs[p.id] = _evaluate_run(p, judge, points, trajectories.get(p.id, ()), times.get(p.id, ()), finals)
        except Exception as error:  # noqa: BLE001 - a judge bug on one prediction must not lose the others
            out.unscorable[p.id] = f"{work.where}: the judge failed: {type(error).__name__}: {error}"
    for a, b in pairs:
        if a in out.runs and b in out.runs:
            try:
                out.pairs[(a, b)] = _pair(a, b, finals, judge, points)
            except Exception as error:  # noqa: BLE001 - as for a run: say so, count the pair as not the same
                out.pairs[(a, b)] = PairJudgment(False, "undetermined", f"the judge failed: {type(error).__name__}: {error}")
    return out


def _evaluate_run(p: StoredPrediction, judge: Judge, points: _Points, steps: Sequence, times: Sequence[float],
                  finals: dict[int, tuple[Any, Any]]) -> RunEvaluation:  # fmt: skip
    text = p.expression if p.status == "ok" else None
    tree = points.tree(text, p.hints) if text is not None else None
    if tree is None:
        if p.status != "ok":
            reason = f"{p.status}: {p.error}" if p.error else p.status
        else:
            reason = "no formula" if text is None else "does not parse"
        record = Judge.failure_record(reason)
    else:
        record = judge.score(tree)
    valid = bool(record.get("success"))
    facts = describe(tree, len(points.variables), judge.canonical_time_limit, judge.positive) if valid else None
    if valid:
        finals[p.id] = (tree, facts)
    nmse_id, nmse_ood = points.nmse(text, p.hints) if valid else (math.inf, math.inf if points.has_ood else None)
    incumbents = incumbents_at(steps, times) if steps else []
    reached = {e: points.nmse(e, p.hints) for e in set(incumbents) if e is not None}
    unavailable = (math.nan, math.nan if points.has_ood else None)
    at = [reached[e] if e is not None else unavailable for e in incumbents]
    return RunEvaluation(
        prediction_id=p.id,
        valid=valid,
        nmse_id=nmse_id,
        nmse_ood=nmse_ood,
        symbolic=truth_judgment(record, facts, judge.truth_formula),
        checkpoint_id=tuple(a for a, _ in at),
        checkpoint_ood=tuple(o for _, o in at) if points.has_ood else None,
        trajectory_steps=len(steps),
    )


def _pair(a: int, b: int, finals: dict, judge: Judge, points: _Points) -> PairJudgment:
    missing = [str(i) for i in (a, b) if i not in finals]
    if missing:
        return PairJudgment(False, "invalid", f"prediction {' and '.join(missing)} has no valid formula")
    y = judge.data.y_validation
    peak = float(np.max(np.abs(y)))
    scale = peak * float(np.sqrt(np.mean(np.square(y / peak)))) if peak > 0 else 0.0  # RMS without overflow
    return pair_judgment(finals[a], finals[b], points.variables, judge.data.X_support, scale)
