"""The analysis the report, ``srbf compare`` and the explorer share, read where the one rule says
(``srbf.stats.reading``): which metrics, which are compared and ranked, and ``run_analysis``, the
analysis at the reading's marks (time marks, or each method's largest budget), with two entries of
one adapter compared at the same configuration.
"""

from __future__ import annotations

import pandas as pd

from srbf.report import markdown_tables as T
from srbf.report.data import (ReportInputError, check_metrics, confirmatory_pairs, metric_columns, provenance_labels,
                              same_adapter_pairs)
from srbf.report.marks import at_largest_budgets
from srbf.stats import DECLARED_TIMES, Analysis, analyze, rule_for
from srbf.stats.reading import Reading, choose_reading


def choose_metrics(frame: pd.DataFrame, metrics=None) -> list[str]:
    """The metrics asked for (checked against the frame), else the headline metrics it has."""
    if metrics:
        metrics = list(dict.fromkeys(metrics))
        check_metrics(frame, metrics)
        return metrics
    chosen = [m for m in T.HEADLINE_METRICS if m in frame.columns]
    return chosen or metric_columns(frame)


def comparable(metric: str) -> bool:
    rule = rule_for(metric)
    return rule.better is not None and rule.primary == "mean" and rule.kind != "time"


def ranked(metric: str) -> bool:
    return rule_for(metric).rank is not None


def run_analysis(frame: pd.DataFrame, metrics, *, times=None, statistic: str = "meta",
                 confirmatory=(), seed: int = 0, n_resamples: int = 1000,
                 at_budget: str | None = None, time_axis: pd.DataFrame | None = None, reading: Reading | None = None,
                 aggregated: Analysis | None = None) -> tuple[Analysis, list[T.Mark], T.Mark | None]:
    """``srbf.stats.analyze`` read where ``reading`` says (default: ``srbf.stats.reading.choose_reading``
    of ``at_budget`` and ``times``, the marks asked for: the one rule every command applies). At the
    time marks; or, ``at_budget="max"``, at one mark where every method stands at its own largest
    complete budget (srbf.report.marks); when no method can be placed at any time mark asked for (no
    timings), verdicts and ranks are issued at each budget instead. Two entries of one adapter
    (``data.same_adapter_pairs``) are compared at each budget both ran, whatever the reading.
    ``confirmatory``: the declared pairs of method labels (Holm); every other comparison is
    exploratory (Benjamini-Hochberg). ``time_axis``: (method, budget, seconds) in place of the
    measured times (a timing readout, ``srbf.stats.timing_readout``). Returns the analysis, the
    marks and the headline mark."""
    analysis, marks = analysis_at_marks(frame, metrics, times=times, statistic=statistic, confirmatory=confirmatory,
                                        seed=seed, n_resamples=n_resamples, at_budget=at_budget, time_axis=time_axis,
                                        reading=reading, aggregated=aggregated)
    return analysis, marks, T.headline_mark(analysis.aggregates, marks)


def leaderboard_table(frame: pd.DataFrame, metrics, *, analysis: Analysis | None = None, marks=None,
                      **options) -> pd.DataFrame:
    """The leaderboard (tables/leaderboard.csv): each method's value of each metric at each mark of
    the reading; of ``analysis`` at ``marks`` when given, else of :func:`analysis_at_marks` with
    ``options``."""
    if analysis is None:
        analysis, marks = analysis_at_marks(frame, metrics, **options)
    provenance = provenance_labels(frame)
    boards = [T.leaderboard(analysis.aggregates, metrics, mark, provenance) for mark in marks]
    return pd.concat(boards, ignore_index=True) if boards else pd.DataFrame()


def reading_of(frame: pd.DataFrame, *, times=None, at_budget: str | None = None,
               time_axis: pd.DataFrame | None = None) -> Reading:
    """``choose_reading`` with the report's input errors: ``times`` are the marks asked for (None:
    the declared ones, and the reading chosen from the data)."""
    try:
        return choose_reading(frame, at_budget=at_budget, at_seconds=times, time_axis=time_axis)
    except ValueError as error:
        raise ReportInputError(str(error)) from None


def analysis_at_marks(frame: pd.DataFrame, metrics, *, times=None, statistic: str = "meta",
                      confirmatory=(), seed: int = 0, n_resamples: int = 1000,
                      at_budget: str | None = None, time_axis: pd.DataFrame | None = None,
                      reading: Reading | None = None, aggregated: Analysis | None = None,
                      ) -> tuple[Analysis, list[T.Mark]]:
    """:func:`run_analysis` without the headline mark (``build_report`` picks it once the figures
    are being drawn). ``aggregated``: the analysis of the same frame in the other reading, whose
    aggregates (at every budget and at the same time marks) are reused instead of computed again
    (the explorer analyses both readings)."""
    if reading is None:
        reading = reading_of(frame, times=times, at_budget=at_budget, time_axis=time_axis)
    pairs = confirmatory_pairs(frame, confirmatory)
    options = {"statistic": statistic, "confirmatory": pairs, "seed": seed, "n_resamples": n_resamples,
               "time_axis": time_axis, "same_configuration": same_adapter_pairs(frame)}
    if reading.axis == "max_budget":
        curve_times = [float(t) for t in (times or DECLARED_TIMES)]
        analysis = (analyze(frame, metrics, times=curve_times, parts=("aggregates",), **options) if aggregated is None
                    else _aggregates_of(aggregated))
        analysis, mark, _ = at_largest_budgets(frame, analysis, metrics, **options)
        return analysis, [mark]
    if aggregated is None:
        analysis = analyze(frame, metrics, times=reading.times, **options)
    else:
        analysis = analyze(frame, metrics, times=reading.times, parts=("comparisons", "ranks"), **options)
        reused = _aggregates_of(aggregated)
        analysis.aggregates, analysis.per_set, analysis.time_axis = reused.aggregates, reused.per_set, reused.time_axis
    marks = T.time_marks(analysis.aggregates, reading.times)
    if not marks:
        by_budget = analyze(frame, metrics, times=(), compare_at="budget", parts=("comparisons", "ranks"), **options)
        analysis.comparisons, analysis.ranks = by_budget.comparisons, by_budget.ranks
        marks = T.budget_marks(analysis.aggregates)
    return analysis, marks


def _aggregates_of(analysis: Analysis) -> Analysis:
    """``analysis``' aggregates at budgets and time marks (not its largest-budget rows), per-set
    values and time axis, without comparisons or ranks."""
    a = analysis.aggregates
    kept = a[a["axis"] != "max_budget"].reset_index(drop=True) if not a.empty else a
    return Analysis(kept, analysis.per_set, pd.DataFrame(), pd.DataFrame(), analysis.time_axis)
