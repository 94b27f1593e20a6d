"""How each metric is aggregated: one table of rules, and the function that applies them to draws.

A rule says what a failed prediction counts as (0, or left out), which values the mean leaves out
(a log FVU of +inf: a formula that blew up) while the median counts them as the worst, the scale
the sets are combined on (identity, log-odds for rates, log for ratios), which direction is better,
the primary summary (R^2 and raw FVU are summarised by their median), and how the metric is ranked
(failures last on quality metrics; length-like properties only over problems every method solved).

Metric names follow ``srbf.judge`` (docs/metrics.md); ``seconds`` is the fit time. A metric not in
the table gets :data:`DEFAULT_RULE`'s behaviour under its own name (no direction: aggregated, never
compared or ranked). Pass your own ``rules`` to override an entry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from srbf.stats.errors import StatsError

LOG10_EPS64 = math.log10(2.0**-52)  # the floor of log10 FVU: below it the value is rounding noise

SCALES = ("identity", "logit", "log")


@dataclass(frozen=True)
class MetricRule:
    """The aggregation rule of one metric.

    name: the metric column. kind: rate | overlap | fit | diagnostic | property | time | axis.
    scale: identity | logit | log (the scale the sets are combined on). better: "higher",
    "lower" or None (a target value such as ratio 1 or difference 0: no verdicts, no ranks).
    failure: "zero" (a failed prediction counts as 0), "omit" (it has no value) or "stored" (its
    value as the judge stored it: the arena axes apply their own rule, and None stays missing).
    mean_omits: values the mean leaves out (+inf, -inf); the median keeps them (as the worst).
    floor: values below it (including -inf) are raised to it. primary: "mean" or "median".
    rank: "quality" (failures rank last), "property" (only problems every method solved) or None.
    bounds: the values the metric can take (R² at most 1, a rate in [0, 1]): intervals are clipped to
    them (a t interval around an R² of 0.8 must not read "[0.4, 1.2]"), and differences to their span.
    """

    name: str
    kind: str
    scale: str = "identity"
    better: str | None = None
    failure: str = "omit"
    mean_omits: tuple[float, ...] = ()
    floor: float | None = None
    primary: str = "mean"
    rank: str | None = None
    bounds: tuple[float, float] = (-math.inf, math.inf)

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise StatsError(f"rule {self.name!r}: scale must be one of {SCALES}, got {self.scale!r}")
        if self.better not in ("higher", "lower", None):
            raise StatsError(f"rule {self.name!r}: better must be 'higher', 'lower' or None, got {self.better!r}")
        if self.failure not in ("zero", "omit", "stored"):
            raise StatsError(f"rule {self.name!r}: failure must be 'zero', 'omit' or 'stored', got {self.failure!r}")
        if self.primary not in ("mean", "median"):
            raise StatsError(f"rule {self.name!r}: primary must be 'mean' or 'median', got {self.primary!r}")
        if self.rank not in ("quality", "property", None):
            raise StatsError(f"rule {self.name!r}: rank must be 'quality', 'property' or None, got {self.rank!r}")
        if self.rank is not None and self.better is None:
            raise StatsError(f"rule {self.name!r}: a ranked metric needs a direction (better)")

    @property
    def higher_is_better(self) -> bool:
        return self.better == "higher"


UNIT = (0.0, 1.0)
NON_NEGATIVE = (0.0, math.inf)


def _rate(name: str) -> MetricRule:
    return MetricRule(name, "rate", scale="logit", better="higher", failure="zero", rank="quality", bounds=UNIT)


def _overlap(name: str) -> MetricRule:
    return MetricRule(name, "overlap", better="higher", failure="zero", rank="quality", bounds=UNIT)


def _table() -> dict[str, MetricRule]:
    rules = [
        _rate("success"),
        _rate("nrr_support"),
        _rate("nrr_validation"),
        _rate("srr_structure"),
        _rate("srr_exponents"),
        _rate("srr_all"),
        _rate("srr_raw"),
        _rate("srr_structure_pruned"),
        _rate("srr_exponents_pruned"),
        _rate("numeric_equivalence"),
        _rate("srbench_accuracy_solution"),
        _rate("srbench_symbolic_solution"),
        *(_overlap(f"{group}_{part}") for group in ("token", "variable") for part in ("precision", "recall", "f1")),
    ]
    for points in ("support", "validation"):
        rules += [
            MetricRule(f"log10_fvu_{points}", "fit", better="lower", mean_omits=(math.inf,),
                       floor=LOG10_EPS64, rank="quality"),
            MetricRule(f"fvu_{points}", "fit", better="lower", mean_omits=(math.inf,), primary="median",
                       rank="quality", bounds=NON_NEGATIVE),
            MetricRule(f"r2_{points}", "fit", better="higher", mean_omits=(-math.inf,), primary="median",
                       rank="quality", bounds=(-math.inf, 1.0)),
        ]
    rules += [
        MetricRule("levenshtein_normalized", "diagnostic", better="lower", rank="quality", bounds=UNIT),
        MetricRule("tree_edit_distance", "diagnostic", better="lower", rank="quality"),
        MetricRule("mdl_ratio", "diagnostic", scale="log"),
        MetricRule("token_count_ratio", "diagnostic", scale="log"),
        # c(prediction) is 0 for a prediction without constants: no logarithm, so no geometric mean.
        MetricRule("constant_count_ratio", "diagnostic"),
        MetricRule("token_count_mismatch", "diagnostic", better="lower", rank="property"),
        MetricRule("mdl_prediction", "diagnostic", better="lower", rank="property"),
        MetricRule("token_count_prediction", "diagnostic", better="lower", rank="property"),
        MetricRule("constant_count_prediction", "diagnostic"),
        MetricRule("constant_count_difference", "diagnostic"),
        MetricRule("nesting_difference", "diagnostic"),
        MetricRule("mdl_truth", "property"),
        MetricRule("token_count_truth", "property"),
        MetricRule("constant_count_truth", "property"),
        MetricRule("seconds", "time", better="lower"),
        # SymbolicArena's per-run axes on [0, 1] (docs/arena.md): the judge stored a failed fit's
        # values (0, or EFF from its trajectory); OOD and EFF may be undefined for every method
        # of a problem, so they rank only over the problems where each method has a value.
        *(MetricRule(f"arena_{axis}", "axis", better="higher", failure="stored", rank="quality", bounds=UNIT)
          for axis in ("id", "sym", "min")),
        *(MetricRule(f"arena_{axis}", "axis", better="higher", failure="stored", rank="property", bounds=UNIT)
          for axis in ("ood", "eff")),
    ]
    return {rule.name: rule for rule in rules}


RULES: dict[str, MetricRule] = _table()
DEFAULT_RULE = MetricRule("<default>", "diagnostic")


def clip_to_bounds(rule: MetricRule, values):
    """``values`` (intervals, estimates) clipped to the values ``rule``'s metric can take; NaN stays NaN."""
    low, high = rule.bounds
    with np.errstate(invalid="ignore"):
        return np.clip(np.asarray(values, dtype=float), low, high)


def clip_difference(rule: MetricRule, values):
    """A difference of two values of ``rule``'s metric clipped to what it can be (a rate's within ±1)."""
    low, high = rule.bounds
    span = high - low
    with np.errstate(invalid="ignore"):
        return np.clip(np.asarray(values, dtype=float), -span, span)


def rule_for(name: str, rules: dict[str, MetricRule] | None = None, *, overlap_failures: str = "zero") -> MetricRule:
    """The rule of metric ``name``: from ``rules``, else the table, else the default (no direction).

    ``overlap_failures="omit"`` leaves failed predictions out of the overlap metrics instead of
    counting them as 0 (the one choice 001 leaves to the reader).
    """
    if overlap_failures not in ("zero", "omit"):
        raise StatsError(f"overlap_failures must be 'zero' or 'omit', got {overlap_failures!r}")
    rule = (rules or {}).get(name) or RULES.get(name) or replace(DEFAULT_RULE, name=name)
    if rule.kind == "overlap" and overlap_failures == "omit":
        rule = replace(rule, failure="omit")
    return rule


def apply_rule(rule: MetricRule, values, success=None) -> np.ndarray:
    """Draw-level values after the failure rule and the floor, as float (NaN = no value).

    ``success`` (same shape, 1/0 or True/False; NaN where there is no prediction at all) marks the
    usable predictions. With rule.failure == "zero" a failed prediction counts as 0; with "omit"
    its value is NaN; with "stored" it keeps its stored value. A NaN value of a usable prediction (an undecided check) stays NaN. Without
    ``success`` every present row counts as usable. Values are not transformed to the log scale here.
    """
    x = np.array(values, dtype=float, copy=True)
    if success is not None and rule.failure != "stored":
        s = np.asarray(success, dtype=float)
        failed = s == 0
        x[failed] = 0.0 if rule.failure == "zero" else np.nan
    if rule.floor is not None:
        with np.errstate(invalid="ignore"):
            x[x < rule.floor] = rule.floor
    return x


def mean_eligible(rule: MetricRule, x: np.ndarray) -> np.ndarray:
    """``x`` with the values the mean leaves out set to NaN (and, on the log scale, x <= 0)."""
    y = np.array(x, dtype=float, copy=True)
    for omitted in rule.mean_omits:
        y[y == omitted] = np.nan
    if rule.scale == "log":
        with np.errstate(invalid="ignore"):
            y[~(y > 0)] = np.nan
    y[~np.isfinite(y)] = np.nan
    return y
