"""The judge's vocabulary: its version and the names of the metrics it computes, by family.

``JUDGE_VERSION`` travels with every stored metric (bump it whenever a metric's definition or
computation changes). ``RATE_KEYS`` and ``OVERLAP_KEYS`` are the metrics a failed prediction
counts as 0 (every other metric of a failure is None). ``AXIS_KEYS`` are SymbolicArena's five
per-run axes, which the scoring pass adds to each record (``judge.run_axes``: they need the
problem's out-of-range points and the fit's trajectory, which ``Judge`` does not see).
docs/metrics.md defines every key.
"""

from __future__ import annotations

__all__ = [
    "AXIS_KEYS",
    "COMPARISON_KEYS",
    "FIT_KEYS",
    "JUDGE_VERSION",
    "LENGTH_KEYS",
    "METRIC_KEYS",
    "OVERLAP_KEYS",
    "RATE_KEYS",
    "SRBENCH_KEYS",
]

JUDGE_VERSION = "1.3"  # bump whenever a metric's definition or computation changes (1.2: AXIS_KEYS; 1.3: issue 35)

FIT_KEYS = (
    "success",
    "fvu_support",
    "fvu_validation",
    "log10_fvu_support",
    "log10_fvu_validation",
    "r2_support",
    "r2_validation",
    "nrr_support",
    "nrr_validation",
)
COMPARISON_KEYS = (
    "srr_structure",
    "srr_exponents",
    "srr_all",
    "srr_raw",
    "srr_structure_pruned",
    "srr_exponents_pruned",
    "numeric_equivalence",
    "token_precision",
    "token_recall",
    "token_f1",
    "variable_precision",
    "variable_recall",
    "variable_f1",
    "levenshtein_normalized",
    "tree_edit_distance",
)
LENGTH_KEYS = (
    "mdl_prediction",
    "mdl_truth",
    "mdl_ratio",
    "token_count_prediction",
    "token_count_truth",
    "token_count_ratio",
    "token_count_mismatch",
    "constant_count_prediction",
    "constant_count_truth",
    "constant_count_ratio",
    "constant_count_difference",
    "nesting_difference",
)
SRBENCH_KEYS = ("srbench_accuracy_solution", "srbench_symbolic_solution")
AXIS_KEYS = ("arena_id", "arena_ood", "arena_sym", "arena_min", "arena_eff")  # [0, 1]; None: undefined
METRIC_KEYS = FIT_KEYS + COMPARISON_KEYS + LENGTH_KEYS + SRBENCH_KEYS + AXIS_KEYS

# Indicators averaged into rates: a failed prediction counts 0.
RATE_KEYS = frozenset(
    {
        "success",
        "nrr_support",
        "nrr_validation",
        "srr_structure",
        "srr_exponents",
        "srr_all",
        "srr_raw",
        "srr_structure_pruned",
        "srr_exponents_pruned",
        "numeric_equivalence",
        "srbench_accuracy_solution",
        "srbench_symbolic_solution",
    }
)
# Bounded overlaps: a failed prediction counts 0 as well.
OVERLAP_KEYS = frozenset(
    {"token_precision", "token_recall", "token_f1", "variable_precision", "variable_recall", "variable_f1"}
)
