"""The arena's symbolic judgments, made by srbf's deterministic judge and kept with their reasons.

SymbolicArena asks a language model whether a prediction equals the truth (SYM) and whether two
seeds' answers agree (STAB's structural part), and had to report inconsistent answers. srbf decides
both with its own judge, so the same pair always gets the same judgment, and every judgment says
which rule decided it:

- ``truth_judgment``: a prediction against the truth, from the judge's record of it
  (``Judge.score``): equivalent when the canonical forms are identical, when the numeric probe
  agrees to 1e-12 in 50-digit arithmetic (``equivalence``), when the skeletons match with fitted
  constants masked and exponents kept and the fit meets Numeric Recovery (the tolerant
  comparison, ``srr_all``), or when the pruned prediction matches that way (``pruning``). For the
  partial score it also gives the tree similarity 1 - NED, the variable F1 and the operator F1.
- ``pair_judgment``: two predictions of one task: positive when their canonical forms are
  identical, when they are identical once every number is masked (same structure), or when the
  numeric probe finds them equal; undetermined when the probe has no point to compare at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from srbf.expr.tree import Call, Expr
from srbf.judge.equivalence import TruthPoints
from srbf.judge.formula_facts import FormulaFacts, structural_matches
from srbf.judge.length import node_label

__all__ = ["PairJudgment", "TruthJudgment", "operator_labels", "pair_judgment", "truth_judgment"]

EQUIVALENT = "equivalent"


@dataclass(frozen=True)
class TruthJudgment:
    """A prediction against the truth: equivalent or not, why, and the partial-recovery parts
    (tree similarity, variable F1, operator F1) and tree sizes (simplified truth, prediction)."""

    equivalent: bool
    judgment: str  # equivalent | not equivalent | undetermined | invalid
    reason: str
    tree_similarity: float = 0.0
    variable_f1: float = 0.0
    operator_f1: float = 0.0
    size_truth: int | None = None
    size_prediction: int | None = None


@dataclass(frozen=True)
class PairJudgment:
    """Two predictions of one task: whether STAB counts them as the same answer, and why."""

    positive: bool
    judgment: str  # equivalent | same structure | different | undetermined
    reason: str


def operator_labels(expr: Expr) -> frozenset[str]:
    """The distinct operators of a tree (their labels, as in the judge's tokens)."""
    found: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is Call:
            found.add(node_label(node))
            stack.extend(node.args)
    return frozenset(found)


def _f1(predicted: frozenset, true: frozenset) -> float:
    """F1 of two sets; 1 when both are empty, 0 when they share nothing."""
    if not predicted and not true:
        return 1.0
    common = len(predicted & true)
    if not common:
        return 0.0
    return 2 * common / (len(predicted) + len(true))


def _tree_similarity(distance: Any, pred: FormulaFacts, truth: FormulaFacts) -> float:
    """1 - the tree edit distance over its largest possible value (every node of one tree deleted,
    every node of the other inserted: the sum of both trees' label characters)."""
    if distance is None:
        return 0.0
    most = sum(pred.tree.sizes) + sum(truth.tree.sizes)
    return 1.0 - float(distance) / most if most else 1.0


def truth_judgment(record: dict[str, Any], pred: FormulaFacts | None, truth: FormulaFacts) -> TruthJudgment:
    """The judgment of a prediction whose judge record is ``record`` and whose formula facts are
    ``pred`` (None for a prediction that failed)."""
    if not record.get("success") or pred is None:
        return TruthJudgment(False, "invalid", f"no valid formula: {record.get('failure_reason') or 'not scored'}")
    if record.get("srr_structure") is None:
        return TruthJudgment(False, "undetermined", "the formula is nested too deeply to compare with the truth")
    parts = dict(
        tree_similarity=_tree_similarity(record.get("tree_edit_distance"), pred, truth),
        variable_f1=float(record.get("variable_f1") or 0.0),
        operator_f1=_f1(operator_labels(pred.exponents), operator_labels(truth.exponents)),
        size_truth=record.get("token_count_truth"),
        size_prediction=record.get("token_count_prediction"),
    )
    recovered = record.get("nrr_validation") == 1
    if recovered and pred.canonical == truth.canonical:
        return TruthJudgment(True, EQUIVALENT, "the canonical forms are identical", **parts)
    if record.get("numeric_equivalence") == 1:
        return TruthJudgment(True, EQUIVALENT, "numeric probe: equal to the truth to 1e-12 (relative) at every "
                             "probe point, in 50-digit arithmetic", **parts)  # fmt: skip
    if record.get("srr_all") == 1:
        return TruthJudgment(True, EQUIVALENT, "tolerant: the truth's canonical form once fitted constants are "
                             "masked (exponents kept), with Numeric Recovery on the validation points", **parts)  # fmt: skip
    if recovered and record.get("srr_exponents_pruned") == 1:
        return TruthJudgment(True, EQUIVALENT, "pruned: with negligible terms dropped and near-integer numbers "
                             "snapped, the truth's canonical form once fitted constants are masked, still with Numeric "
                             "Recovery", **parts)  # fmt: skip
    if recovered and record.get("numeric_equivalence") is None:
        return TruthJudgment(False, "undetermined", "numeric probe: the truth is defined at none of the probe "
                             "points, and no canonical comparison matched", **parts)  # fmt: skip
    if not recovered:
        reason = f"no Numeric Recovery on the validation points (FVU {record.get('fvu_validation')!r})"
    else:
        reason = "the canonical forms differ, also with constants masked and pruned, and the numeric probe disagrees"
    return TruthJudgment(False, "not equivalent", reason, **parts)


def pair_judgment(
    a: tuple[Expr, FormulaFacts],
    b: tuple[Expr, FormulaFacts],
    variables: Sequence[str],
    X_support: np.ndarray,
    scale: float,
) -> PairJudgment:
    """Whether two valid predictions of one task (tree and facts each) are the same answer."""
    (tree_a, facts_a), (tree_b, facts_b) = a, b
    if facts_a.canonical == facts_b.canonical:
        return PairJudgment(True, EQUIVALENT, "the canonical forms are identical")
    if structural_matches(facts_a, facts_b)[0]:
        return PairJudgment(True, "same structure", "identical once every number is masked")
    agrees = TruthPoints(tree_a, variables, X_support, scale).agrees(tree_b)
    if agrees is None:
        return PairJudgment(False, "undetermined", "numeric probe: the first formula is defined at none of the probe points")
    if agrees:
        return PairJudgment(True, EQUIVALENT, "numeric probe: equal to 1e-12 (relative) at every probe point")
    return PairJudgment(False, "different", "different canonical forms and structures, and the numeric probe disagrees")
