"""Statistics over per-problem values: combining sets, bootstrap, paired comparisons, ranks.

Plain NumPy/SciPy functions (docs/statistics.md describes every procedure):

- :func:`combine_sets` -- sets combined with inverse-variance weights plus Paule-Mandel tau^2;
- :func:`bootstrap_median` -- the expression-level bootstrap (the alternative);
- :func:`weighted_median` -- the median that weighs sets as the average does;
- :func:`paired_comparison`, :func:`mcnemar_exact`, :func:`wilcoxon_pratt` -- A vs B;
- :func:`holm`, :func:`benjamini_hochberg` -- multiplicity corrections;
- :func:`friedman_nemenyi` -- ranks, Friedman test, critical difference, groups;
- :func:`interpolate_at_time` -- a method's values at equal time;
- :func:`per_problem_values` -- one value per method, budget and problem, draws averaged;
- :func:`analyze` -- the long per-prediction frame to the aggregates, comparisons and ranks tables;
- :data:`RULES` / :func:`rule_for` -- how each metric is aggregated (failures, infinities, scale);
- :func:`display_name` -- the words a figure or a heading shows for a metric.

Imported lazily, each name from its own module: the drawing process reads the rules and names
without SciPy (srbf.report.drawing), and only what is used is loaded.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

_EXPORTS = {
    "Analysis": "srbf.stats.analysis",
    "StatsError": "srbf.stats.errors",
    "DECLARED_TIMES": "srbf.stats.timeaxis",
    "DISPLAY_NAMES": "srbf.stats.names",
    "MetricRule": "srbf.stats.rules",
    "RULES": "srbf.stats.rules",
    "analyze": "srbf.stats.analysis",
    "benjamini_hochberg": "srbf.stats.multiple",
    "bootstrap_median": "srbf.stats.bootstrap",
    "combine_sets": "srbf.stats.meta",
    "critical_difference": "srbf.stats.ranks",
    "display_name": "srbf.stats.names",
    "friedman_nemenyi": "srbf.stats.ranks",
    "holm": "srbf.stats.multiple",
    "interpolate_at_time": "srbf.stats.timeaxis",
    "mcnemar_exact": "srbf.stats.pvalues",
    "nemenyi_q": "srbf.stats.ranks",
    "paired_comparison": "srbf.stats.paired",
    "paule_mandel": "srbf.stats.meta",
    "per_problem_values": "srbf.stats.analysis",
    "rule_for": "srbf.stats.rules",
    "time_weights": "srbf.stats.timeaxis",
    "verdict": "srbf.stats.paired",
    "weighted_median": "srbf.stats.median",
    "wilcoxon_pratt": "srbf.stats.pvalues",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
