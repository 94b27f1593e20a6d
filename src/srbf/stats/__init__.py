"""Statistics over per-problem values: combining sets, bootstrap, paired comparisons, ranks.

Plain NumPy/SciPy functions (docs/statistics.md describes every procedure):

- :func:`combine_sets` -- sets combined with inverse-variance weights plus Paule-Mandel tau^2;
- :func:`bootstrap_median` -- the expression-level bootstrap (the alternative);
- :func:`weighted_median` -- the median that weighs sets as the average does;
- :func:`paired_comparison`, :func:`mcnemar_exact`, :func:`wilcoxon_pratt` -- A vs B;
- :func:`holm`, :func:`benjamini_hochberg` -- multiplicity corrections;
- :func:`friedman_nemenyi` -- ranks, Friedman test, critical difference, groups;
- :func:`interpolate_at_time` -- a method's values at equal time;
- :func:`analyze` -- the long per-prediction frame to the aggregates, comparisons and ranks tables;
- :data:`RULES` / :func:`rule_for` -- how each metric is aggregated (failures, infinities, scale);
- :func:`display_name` -- the words a figure or a heading shows for a metric.
"""

from srbf.stats.bootstrap import bootstrap_median
from srbf.stats.median import weighted_median
from srbf.stats.meta import combine_sets, paule_mandel
from srbf.stats.multiple import benjamini_hochberg, holm
from srbf.stats.paired import paired_comparison, verdict
from srbf.stats.pvalues import mcnemar_exact, wilcoxon_pratt
from srbf.stats.ranks import critical_difference, friedman_nemenyi, nemenyi_q
from srbf.stats.names import DISPLAY_NAMES, display_name
from srbf.stats.rules import RULES, MetricRule, rule_for
from srbf.stats.analysis import Analysis, analyze
from srbf.stats.timeaxis import DECLARED_TIMES, interpolate_at_time, time_weights

__all__ = [
    "Analysis",
    "DECLARED_TIMES",
    "DISPLAY_NAMES",
    "MetricRule",
    "RULES",
    "analyze",
    "benjamini_hochberg",
    "bootstrap_median",
    "combine_sets",
    "critical_difference",
    "display_name",
    "friedman_nemenyi",
    "holm",
    "interpolate_at_time",
    "mcnemar_exact",
    "nemenyi_q",
    "paired_comparison",
    "paule_mandel",
    "rule_for",
    "time_weights",
    "verdict",
    "weighted_median",
    "wilcoxon_pratt",
]
