"""The scoring function: one truth, its data, and predictions in; one flat dict of metrics out.

``Judge(truth, data)`` prepares a problem once (reads and checks the arrays, parses the truth,
builds its canonical forms, skeleton tokens and lengths) and then scores any number of
predictions; ``score`` and ``score_many`` are its one-call forms. docs/metrics.md defines every
key (``metric_keys`` names them). Failure semantics: a prediction that does not parse, does not
evaluate, or gives a non-finite value on any support or validation point has ``success = 0`` and
a ``failure_reason``; rates count it as 0, the overlap metrics as 0, and every other metric is
None. ``Judge.failure_record`` is that record without a problem, for a fit that returned nothing.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Iterable, NamedTuple, Sequence

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.masking import mask
from srbf.expr.parser import ParseError, parse
from srbf.expr.tree import Call, Const, Expr, Num, Var, variables_of
from srbf.judge import fit
from srbf.judge.catalog_entry import entry_defaults, positive_note
from srbf.judge.data import JudgeData, JudgeInputError
from srbf.judge.distances import levenshtein_normalized, tree_edit_distance
from srbf.judge.equivalence import TruthPoints
from srbf.judge.formula_facts import FormulaFacts, describe, structural_matches, written_alike
from srbf.judge.length import binarize, node_label
from srbf.judge.metric_keys import (
    COMPARISON_KEYS,
    FIT_KEYS,
    JUDGE_VERSION,
    LENGTH_KEYS,
    OVERLAP_KEYS,
    RATE_KEYS,
)
from srbf.judge.pruning import prune
from srbf.judge.srbench import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT, SYMBOLIC_R2, SymbolicPool, shared_pool

# Room for any formula of 100,000 nodes; a longer text fails at once instead of taking minutes and
# gigabytes to parse (workers already cap what they return at 100 KB, docs/adapters.md).
MAX_PREDICTION_CHARS = 1_000_000

DEFAULT_CANONICAL_TIME_LIMIT = 1.0


def _overlap(predicted: frozenset, true: frozenset) -> tuple[float, float, float]:
    """Precision, recall and F1 of two sets. An empty set has precision (recall) 0, unless both
    are empty (1, 1, 1); F1 is 0 when precision and recall are both 0."""
    if not predicted and not true:
        return 1.0, 1.0, 1.0
    common = len(predicted & true)
    precision = common / len(predicted) if predicted else 0.0
    recall = common / len(true) if true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


@functools.cache
def _blank_template(srbench: bool, numeric_only: bool) -> dict[str, Any]:
    """Every key a judge with these options records, with its default, in the stored order (made
    once per pair of options: ``Judge._blank`` copies it for each prediction)."""
    keys = FIT_KEYS + ("srbench_accuracy_solution",)
    if not numeric_only:
        keys = FIT_KEYS + COMPARISON_KEYS + LENGTH_KEYS + ("srbench_accuracy_solution",)
    if srbench:
        keys = keys + ("srbench_symbolic_solution",)
    result: dict[str, Any] = {key: None for key in keys}
    result["failure_reason"] = None
    if not numeric_only:
        result["canonical_complete"] = None
    if srbench:
        result["srbench_symbolic_undecided"] = False
        result["srbench_symbolic_note"] = ""
    result["judge_version"] = JUDGE_VERSION
    return result


class Reading(NamedTuple):
    """One prediction text as a judge read it: its tree, compiled function, facts (None when the
    comparison was not made) and the record it scored (before any SRBench symbolic check)."""

    tree: Expr
    function: Any
    facts: FormulaFacts | None
    record: dict[str, Any]


def _is_tree(value: Any) -> bool:
    return isinstance(value, (Num, Var, Const, Call))


class Judge:
    """Scores predictions against one truth on one data set; the truth is prepared once.

    Parameters
    ----------
    truth : str or Expr
        The true formula, a string or a tree over ``variables``.
    data : mapping, Problem, JudgeData or .npz path
        ``X_support``, ``y_support``, ``X_validation`` and ``y_validation`` (X of shape (n, d)).
    variables : sequence of str, optional
        The data's column names (or one comma-separated string). Default: the data's
        ``variables`` entry, else ``x0..x{d-1}``.
    srbench : bool, default False
        Add SRBench's symbolic solution (SymPy, in worker processes).
    time_limit : float, default 60
        Wall-clock backstop in seconds per SRBench check.
    work_limit : int, default 1_000_000
        Python calls each SRBench check may make (about 1 s of SymPy).
    canonical_time_limit : float, default 1.0
        Seconds the canonical form of one formula may take; a form cut short is flagged.
    numeric_only : bool, default False
        Compute only the fit metrics (and the SRBench accuracy solution).
    pool : SymbolicPool, optional
        The worker pool for the SRBench checks (default: one shared pool).
    positive : iterable of str or str, optional
        Variables never negative on the problem's domain (a list, or one comma-separated string).
        Default (None): those of the shipped catalog entry the data names, else none.
    target : str, optional
        The problem's output name: a prediction ``target = formula`` (or ``y = ...``) is scored
        as ``formula``; any other left-hand side does not parse. Default as for ``positive``.
    truth_facts : FormulaFacts, optional
        What ``formula_facts.describe`` gives the truth with these options, when known already.

    Raises
    ------
    JudgeInputError
        Bad data, an unreadable truth, or a ``positive`` variable that is not a column or has a
        negative value. A bad prediction never raises: its record says why it failed.

    See Also
    --------
    score : one prediction, without keeping the judge.

    Notes
    -----
    Preparing the truth (its parse, canonical form, description and values) is most of the cost
    of scoring one prediction, so the scoring pass keeps one judge per problem and scores every
    method's predictions with it. Both forms are canonicalised under the rules that hold for
    ``positive`` variables (docs/canonical.md); every record says which it was scored under
    (``positive_variables``: the names and their source, or "none given"). The scoring pass reads
    the shipped catalogs' ``truth_facts`` from ``judge.truth_facts``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(1, 2, 20).reshape(-1, 1)
    >>> data = {"X_support": X, "y_support": 2 * X[:, 0] + 1,
    ...         "X_validation": X + 1, "y_validation": 2 * X[:, 0] + 3}
    >>> judge = Judge("2*x0 + 1", data)
    >>> [record["fvu_validation"] for record in judge.score_many(["1 + 2*x0", "x0"])]
    [0.0, 33.5]
    """

    def __init__(
        self,
        truth: str | Expr,
        data: Any,
        *,
        variables: Sequence[str] | None = None,
        srbench: bool = False,
        time_limit: float = DEFAULT_TIME_LIMIT,
        work_limit: int = DEFAULT_WORK_LIMIT,
        canonical_time_limit: float = DEFAULT_CANONICAL_TIME_LIMIT,
        numeric_only: bool = False,
        pool: SymbolicPool | None = None,
        positive: Iterable[str] | str | None = None,
        target: str | None = None,
        truth_facts: FormulaFacts | None = None,
    ):
        if isinstance(variables, str):
            variables = [v.strip() for v in variables.split(",")]
        self.data = JudgeData.from_any(data, variables)
        self.variables = self.data.variables
        self.srbench = bool(srbench)
        self.time_limit = float(time_limit)
        self.work_limit = work_limit
        self.canonical_time_limit = float(canonical_time_limit)
        self.numeric_only = bool(numeric_only)
        self._pool = pool
        self._X_all = np.concatenate((self.data.X_support, self.data.X_validation))
        self._n_support = self.data.X_support.shape[0]
        self.positive_source = ""  # given by the caller (or none at all)
        if positive is None or target is None:  # from the catalog entry the data names, if any
            entry_positive, entry_target, source = entry_defaults(data, self.variables)
            if positive is None:
                positive, self.positive_source = entry_positive or (), source
            target = entry_target if target is None else target
        self.positive = self._read_positive(positive)
        self.positive_note = positive_note(self.positive, self.positive_source)
        self.target = target
        self.truth = self._read_truth(truth)
        self._truth_formula = truth_facts
        self._truth_points: TruthPoints | None = None
        self._target_support = fit.Target(self.data.y_support)
        self._target_validation = fit.Target(self.data.y_validation)
        self._readings: dict[str, Reading] = {}  # each prediction text read once per problem

    @property
    def validation_target(self) -> fit.Target:
        """The validation targets prepared for FVU (the arena axes' ID set is the same points)."""
        return self._target_validation

    def reading(self, text: str) -> Reading | None:
        """The tree, compiled function and facts of a prediction text this judge has scored, or
        None (not scored, or it failed): the arena axes reuse them instead of reading it again."""
        return self._readings.get(text)

    # -- preparation -------------------------------------------------------------------------

    def _read_positive(self, positive: Iterable[str] | str) -> frozenset[str]:
        if isinstance(positive, str):
            positive = [name.strip() for name in positive.split(",") if name.strip()]
        names = frozenset(str(name) for name in positive)
        unknown = sorted(names - set(self.variables))
        if unknown:
            raise JudgeInputError(
                f"positive names {', '.join(unknown)}, not among the data's columns ({', '.join(self.variables)})"
            )
        for name in sorted(names):
            lowest = float(np.minimum.reduce(self._X_all[:, self.variables.index(name)]))  # both sets at once
            if lowest < 0:
                raise JudgeInputError(f"variable {name} is declared positive but has a negative value ({lowest:g})")
        return names

    def _read_truth(self, truth: str | Expr) -> Expr:
        if isinstance(truth, str):
            try:
                return parse(truth, self.variables)
            except ParseError as error:
                raise JudgeInputError(f"cannot read the truth formula {truth!r}: {error}") from None
        if not _is_tree(truth):
            raise JudgeInputError(f"the truth must be a formula string or tree, got {type(truth).__name__}")
        unknown = sorted(variables_of(truth) - set(self.variables))
        if unknown:
            raise JudgeInputError(
                f"the truth uses variable(s) {', '.join(unknown)} that are not among the data's columns "
                f"({', '.join(self.variables)})"
            )
        return truth

    @property
    def truth_formula(self) -> FormulaFacts:
        if self._truth_formula is None:
            self._truth_formula = describe(self.truth, len(self.variables), self.canonical_time_limit, self.positive)
        return self._truth_formula

    @property
    def truth_points(self) -> TruthPoints:
        if self._truth_points is None:
            y = self.data.y_validation
            scale = float(np.sqrt(np.mean(np.square(y / np.max(np.abs(y)))))) * float(np.max(np.abs(y))) if np.any(y) else 0.0
            self._truth_points = TruthPoints(self.truth, self.variables, self.data.X_support, scale)
        return self._truth_points

    # -- scoring -----------------------------------------------------------------------------

    def score(self, prediction: str | Expr | None) -> dict[str, Any]:
        """All metrics of one prediction (see docs/metrics.md)."""
        return self.score_many([prediction])[0]

    def score_many(self, predictions: Iterable[str | Expr | None]) -> list[dict[str, Any]]:
        """Metrics of each prediction, in order; the SRBench symbolic checks run in parallel."""
        scored = [self._score_one(prediction) for prediction in predictions]
        results = [result for result, _ in scored]
        for result in results:
            result["positive_variables"] = self.positive_note
        if self.srbench:
            self._add_symbolic(scored)
        return results

    @staticmethod
    def _blank(srbench: bool, numeric_only: bool) -> dict[str, Any]:
        """A fresh record with every key of these options and its default (copied from one made once)."""
        return dict(_blank_template(bool(srbench), bool(numeric_only)))

    @classmethod
    def failure_record(cls, reason: str, *, srbench: bool = False, numeric_only: bool = False) -> dict[str, Any]:
        """The record of a failed prediction, ``failure_reason`` = ``reason``: the keys a judge with
        these options gives any prediction, rates and overlaps 0, every other metric None. Needs no
        problem: the scoring pass records failed fits and placeholders with it."""
        result = cls._blank(srbench, numeric_only)
        for key in result:
            if key in RATE_KEYS or key in OVERLAP_KEYS:
                result[key] = 0
        result["failure_reason"] = reason
        return result

    def _read_prediction(self, prediction: Any) -> tuple[Expr, Expr]:
        """The tree as given, and a binary tree to evaluate (the parser only builds binary ones)."""
        if prediction is None:
            raise _Failure("no prediction")
        if isinstance(prediction, str):
            if len(prediction) > MAX_PREDICTION_CHARS:
                raise _Failure(f"{len(prediction):,} characters: longer than the judge reads ({MAX_PREDICTION_CHARS:,})")
            try:
                expr = parse(prediction, self.variables, target=self.target, hashed=True)  # a cache key below
            except ParseError as error:
                raise _Failure(f"does not parse: {error}") from None
            return expr, expr
        if _is_tree(prediction):
            unknown = sorted(variables_of(prediction) - set(self.variables))
            if unknown:
                raise _Failure(f"uses variable(s) not among the data's columns: {', '.join(unknown)}")
            return prediction, binarize(prediction)
        raise _Failure(f"not a formula: got {type(prediction).__name__}")

    def _evaluate(self, expr: Expr) -> tuple[Any, tuple[np.ndarray, np.ndarray]]:
        try:
            function = compile_expr(expr, self.variables)
            values = function(self._X_all)
        except (Exception, RecursionError) as error:  # noqa: BLE001 - any failure is the prediction's
            raise _Failure(f"does not evaluate: {type(error).__name__}: {error}") from None
        finite = np.isfinite(values)
        if not finite.all():
            support_bad = int(np.count_nonzero(~finite[: self._n_support]))
            validation_bad = int(np.count_nonzero(~finite[self._n_support :]))
            raise _Failure(
                f"non-finite values (NaN or inf) at {support_bad} of {self._n_support} support and "
                f"{validation_bad} of {values.size - self._n_support} validation points"
            )
        return function, (values[: self._n_support], values[self._n_support :])

    def _score_one(self, prediction: Any) -> tuple[dict[str, Any], Expr | None]:
        known = self._readings.get(prediction) if isinstance(prediction, str) else None
        if known is not None:  # the same text again (another method, budget or repeat): same metrics
            return dict(known.record), known.tree
        try:
            expr, binary = self._read_prediction(prediction)
            function, (y_support, y_validation) = self._evaluate(binary)
        except _Failure as failure:
            return self.failure_record(str(failure), srbench=self.srbench, numeric_only=self.numeric_only), None

        result = self._blank(self.srbench, self.numeric_only)
        fvu_s = self._target_support.fvu(y_support)
        fvu_v = self._target_validation.fvu(y_validation)
        result.update(
            success=1,
            fvu_support=fvu_s,
            fvu_validation=fvu_v,
            log10_fvu_support=fit.log10_fvu(fvu_s),
            log10_fvu_validation=fit.log10_fvu(fvu_v),
            r2_support=1.0 - fvu_s,
            r2_validation=1.0 - fvu_v,
            nrr_support=int(fit.numeric_recovery(fvu_s)),
            nrr_validation=int(fit.numeric_recovery(fvu_v)),
            srbench_accuracy_solution=int(1.0 - fvu_v > fit.ACCURACY_SOLUTION_R2),
        )
        facts = None
        if not self.numeric_only:
            try:
                facts = self._compare(expr, result, y_validation)
            except RecursionError:  # nested beyond what the tree code can walk: leave them missing
                for key in COMPARISON_KEYS + LENGTH_KEYS:
                    result[key] = None
                result["canonical_complete"] = False
        if isinstance(prediction, str):
            self._readings[prediction] = Reading(expr, function, facts, dict(result))
        return result, expr

    def _compare(self, expr: Expr, result: dict[str, Any], y_validation: np.ndarray) -> FormulaFacts:
        """Fill ``result``'s comparison and length metrics; the prediction's facts."""
        truth = self.truth_formula
        pred = describe(expr, len(self.variables), self.canonical_time_limit, self.positive)
        result["canonical_complete"] = truth.complete and pred.complete

        structure, exponents = structural_matches(pred, truth)
        nrr = result["nrr_validation"]
        result["srr_structure"] = int(structure)
        result["srr_exponents"] = int(exponents)
        result["srr_all"] = int(exponents and nrr == 1)
        result["srr_raw"] = int(written_alike(pred, truth))
        pruned_structure, pruned_exponents = structure, exponents
        if nrr == 1 and not exponents:
            pruned_structure, pruned_exponents = self._pruned_matches(pred, y_validation, structure)
        result["srr_structure_pruned"] = int(pruned_structure)
        result["srr_exponents_pruned"] = int(pruned_exponents)

        if nrr != 1:
            equivalent = 0
        elif pred.canonical == truth.canonical or expr == self.truth:
            equivalent = 1
        else:
            agrees = self.truth_points.agrees(expr)
            equivalent = None if agrees is None else int(agrees)
        result["numeric_equivalence"] = equivalent

        precision, recall, f1 = _overlap(pred.token_set, truth.token_set)
        result.update(token_precision=precision, token_recall=recall, token_f1=f1)
        precision, recall, f1 = _overlap(pred.variables, truth.variables)
        result.update(variable_precision=precision, variable_recall=recall, variable_f1=f1)
        result["levenshtein_normalized"] = levenshtein_normalized(pred.tokens, truth.tokens)
        result["tree_edit_distance"] = tree_edit_distance(pred.tree, truth.tree, node_label)

        n_pred, n_true = len(pred.tokens), len(truth.tokens)
        ratio = n_pred / n_true
        result.update(
            mdl_prediction=pred.mdl,
            mdl_truth=truth.mdl,
            mdl_ratio=pred.mdl / truth.mdl,
            token_count_prediction=n_pred,
            token_count_truth=n_true,
            token_count_ratio=ratio,
            token_count_mismatch=abs(math.log2(ratio)),
            constant_count_prediction=pred.constants,
            constant_count_truth=truth.constants,
            constant_count_ratio=pred.constants / truth.constants if truth.constants else None,
            constant_count_difference=pred.constants - truth.constants,
            nesting_difference=pred.nesting - truth.nesting,
        )
        return pred

    def _pruned_matches(self, pred: FormulaFacts, y_validation: np.ndarray, structure: bool) -> tuple[bool, bool]:
        """Whether the pruned prediction (judge/pruning.py) matches the truth's structure and
        exponents; only when its own validation FVU still meets Numeric Recovery."""
        pruned = prune(pred.canonical, self.variables, self.data.X_validation, y_validation)
        if pruned is None:
            return structure, False
        values = compile_expr(pruned, self.variables)(self.data.X_validation)
        if not np.isfinite(values).all() or not fit.numeric_recovery(self._target_validation.fvu(values)):
            return structure, False
        truth = self.truth_formula
        limit, positive = self.canonical_time_limit, self.positive
        exponents = mask(pruned, "exponents", time_limit=limit, positive=positive) == truth.exponents
        structure = structure or exponents or mask(pruned, "structure", time_limit=limit, positive=positive) == truth.structure
        return structure, exponents

    def _add_symbolic(self, scored: list[tuple[dict[str, Any], Expr | None]]) -> None:
        pairs, targets = [], []
        for result, expr in scored:
            if expr is None:
                continue  # failed prediction: already 0
            if not result["r2_validation"] > SYMBOLIC_R2:
                result["srbench_symbolic_solution"] = 0
                result["srbench_symbolic_note"] = f"R^2 on validation is not above {SYMBOLIC_R2:g}"
                continue
            pairs.append((self.truth, expr))
            targets.append(result)
        if not pairs:
            return
        pool = self._pool if self._pool is not None else shared_pool()
        for result, outcome in zip(targets, pool.run(pairs, time_limit=self.time_limit, work_limit=self.work_limit)):
            result["srbench_symbolic_solution"] = None if outcome.solution is None else int(outcome.solution)
            result["srbench_symbolic_undecided"] = outcome.undecided
            result["srbench_symbolic_note"] = outcome.note


class _Failure(Exception):
    """A prediction that cannot be scored; the message is its failure_reason."""


def score(
    truth: str | Expr,
    prediction: str | Expr | None,
    data: Any,
    *,
    variables: Sequence[str] | None = None,
    srbench: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """All metrics of one prediction against one truth (docs/metrics.md defines each).

    Parameters
    ----------
    truth : str or Expr
        The true formula, a string or a tree over ``variables``.
    prediction : str, Expr or None
        The predicted formula; None (no formula) is a failed prediction.
    data : mapping, Problem, JudgeData or .npz path
        ``X_support``, ``y_support``, ``X_validation`` and ``y_validation`` (X of shape (n, d)).
    variables : sequence of str, optional
        The data's column names. Default: the data's ``variables`` entry, else ``x0..x{d-1}``.
    srbench : bool, default False
        Add SRBench's symbolic solution (SymPy, in a worker process).
    **options
        The other options of :class:`Judge` (``positive``, ``target``, ``numeric_only``, limits).

    Returns
    -------
    dict
        Metric name -> value, the same keys for every prediction under the same options.
        ``failure_reason`` is None for a scored prediction, else why it failed (its rates and
        overlaps are then 0 and every other metric None).

    Raises
    ------
    JudgeInputError
        Bad data or an unreadable truth; a bad prediction never raises.

    See Also
    --------
    Judge : prepares the truth once for many predictions.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(1, 2, 20).reshape(-1, 1)
    >>> data = {"X_support": X, "y_support": 2 * X[:, 0] + 1,
    ...         "X_validation": X + 1, "y_validation": 2 * X[:, 0] + 3}
    >>> record = score("2*x0 + 1", "1 + 2*x0", data)
    >>> record["fvu_validation"], record["numeric_equivalence"], record["failure_reason"]
    (0.0, 1, None)
    >>> score("2*x0 + 1", "x0 +", data)["failure_reason"]
    'does not parse: formula ends too early at position 4: an operand is missing'
    """
    return Judge(truth, data, variables=variables, srbench=srbench, **options).score(prediction)


def score_many(
    truth: str | Expr,
    predictions: Iterable[str | Expr | None],
    data: Any,
    *,
    variables: Sequence[str] | None = None,
    srbench: bool = False,
    **options: Any,
) -> list[dict[str, Any]]:
    """Metrics of several predictions of one problem, the truth prepared once."""
    return Judge(truth, data, variables=variables, srbench=srbench, **options).score_many(predictions)
