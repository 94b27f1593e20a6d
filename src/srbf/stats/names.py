"""The display name of each metric: the words a figure's title or a report's heading uses, with
the code (``nrr_validation``) kept beside it in the caption so a reader can look it up in
docs/metrics.md. One table for the report text and the figures alike.
"""

from __future__ import annotations

_POINTS = ("support", "validation")

DISPLAY_NAMES: dict[str, str] = {
    "success": "usable prediction rate",
    "numeric_equivalence": "numeric equivalence rate",
    "srr_structure": "symbolic recovery rate (structure)",
    "srr_exponents": "symbolic recovery rate (structure and exponents)",
    "srr_all": "symbolic recovery rate (all numbers)",
    "srr_raw": "raw symbolic recovery rate (as written)",
    "srr_structure_pruned": "tolerant symbolic recovery rate (structure, float noise pruned)",
    "srr_exponents_pruned": "tolerant symbolic recovery rate (exponents, float noise pruned)",
    "srbench_accuracy_solution": "SRBench accuracy solution rate",
    "srbench_symbolic_solution": "SRBench symbolic solution rate",
    "levenshtein_normalized": "normalized token edit distance",
    "tree_edit_distance": "tree edit distance",
    "mdl_ratio": "description length ratio (prediction / truth)",
    "mdl_prediction": "description length of the prediction (bits)",
    "mdl_truth": "description length of the truth (bits)",
    "token_count_ratio": "length ratio (prediction / truth)",
    "token_count_mismatch": "length mismatch (doublings)",
    "token_count_prediction": "length of the prediction (tokens)",
    "token_count_truth": "length of the truth (tokens)",
    "constant_count_ratio": "constant count ratio (prediction / truth)",
    "constant_count_difference": "extra constants (prediction - truth)",
    "constant_count_prediction": "constants in the prediction",
    "constant_count_truth": "constants in the truth",
    "nesting_difference": "extra nesting (prediction - truth)",
    "seconds": "fit time (seconds)",
    "arena_id": "ID axis: in-range quality phi(NMSE)",
    "arena_ood": "OOD axis: out-of-range quality phi(NMSE)",
    "arena_sym": "SYM axis: symbolic quality",
    "arena_min": "MIN axis: parsimony (truth size / prediction size, at most 1)",
    "arena_eff": "EFF axis: search efficiency over the checkpoints",
    **{f"{group}_{part}": f"{group} {'F1' if part == 'f1' else part}"
       for group in ("token", "variable") for part in ("precision", "recall", "f1")},
    **{name: text for points in _POINTS for name, text in (
        (f"nrr_{points}", f"{points} numeric recovery rate"),
        (f"log10_fvu_{points}", f"{points} log10 FVU (fraction of variance unexplained)"),
        (f"fvu_{points}", f"{points} FVU (fraction of variance unexplained)"),
        (f"r2_{points}", f"{points} R²"),
    )},
}


def display_name(metric: str) -> str:
    """The words for ``metric``; a metric off the table is shown by its code with spaces."""
    return DISPLAY_NAMES.get(metric, metric.replace("_", " "))

