"""The numbers the explorer shows, from the same analysis ``srbf analyze`` runs.

Every value here comes out of ``srbf.report.readings.run_analysis`` (itself ``srbf.stats.analyze``)
and the report's table builders (``srbf.report.markdown_tables``): the leaderboard rows are the rows of
``tables/leaderboard.csv``, the verdicts those of ``tables/comparisons.csv``. The explorer adds
one thing the report has no room for: the same analysis read at a grid of in-between times, so
the Table's slider and the Paired view's Delta curves can show descriptive values between the
declared marks. Those carry ``declared: false`` and no verdict is quoted from them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from srbf.report import markdown_tables as T
from srbf.report.readings import choose_metrics, comparable, reading_of, run_analysis
from srbf.report.data import budget_units, confirmatory_pairs, label_note, provenance_labels
from srbf.report.pictures import LIMITS, distribution_boxes, distribution_points, pareto_table
from srbf.report.rounding import format_with
from srbf.stats import DECLARED_TIMES, analyze, rule_for
from srbf.stats.ranks import cd_groups
from srbf.stats.reading import Reading

STEPS_PER_DECADE = 4  # in-between times for the slider and the Delta curves: 10^(k/4) seconds
CURVE_COLUMNS = ("axis", "budget", "time", "status", "method", "metric", "seconds", "complete", "estimate",
                 "ci_low", "ci_high", "n_problems", "n_universe", "share", "low_share", "median")
CELL_COLUMNS = ("axis", "time", "budget", "metric", "method_a", "method_b", "status_a", "status_b", "verdict",
                "verdict_note", "delta", "ci_low", "ci_high", "margin", "mde80", "p_value", "p_adjusted", "p_shown",
                "p_adjusted_shown", "delta_shown", "decimals", "margin_rounded", "mde80_rounded", "correction",
                "confirmatory", "n_pairs", "n_a_only", "n_b_only", "wins_a", "wins_b", "test", "complete",
                "same_configuration", "decided_by")
BETWEEN_COLUMNS = ("time", "metric", "method_a", "method_b", "status_a", "status_b", "verdict", "delta", "ci_low",
                   "ci_high", "margin", "delta_shown", "decimals", "n_pairs")  # descriptive: no p-values
POINT_COLUMNS = ("method", "metric", "catalog", "problem_id", "value", "shown", "clipped", "jitter")
RANK_COLUMNS = ("axis", "time", "budget", "metric", "method", "mean_rank", "status", "k", "n_problems",
                "population", "friedman_statistic", "p_value", "cd", "significant", "groups", "summary")


def table(frame: pd.DataFrame, columns=None) -> dict:
    """A frame as compact column-oriented JSON data: ``{"columns": [...], "data": [[...], ...]}``."""
    if columns is not None:
        frame = frame.reindex(columns=[c for c in columns if c in frame.columns])
    return {"columns": [str(c) for c in frame.columns], "data": frame.to_numpy(dtype=object).tolist()}


def metric_info(metrics) -> dict:
    """What the page needs to know of each metric: direction, primary summary, kind."""
    info = {}
    for metric in metrics:
        rule = rule_for(metric)
        info[metric] = {"better": rule.better, "primary": rule.primary, "kind": rule.kind, "scale": rule.scale,
                        "comparable": comparable(metric), "ranked": rule.rank is not None,
                        "rank_primary": metric == T.RANK_METRIC, "median_shown": T.wants_median(metric)}
    return info


def time_grid(aggregates: pd.DataFrame, declared) -> list[float]:
    """In-between times (quarter decades) across the methods' measured seconds, declared marks left out."""
    seconds = aggregates.loc[aggregates["axis"] == "budget", "seconds"].astype(float)
    seconds = seconds[np.isfinite(seconds) & (seconds > 0)]
    if seconds.empty:
        return []
    low = math.floor(math.log10(seconds.min()) * STEPS_PER_DECADE)
    high = math.ceil(math.log10(seconds.max()) * STEPS_PER_DECADE)
    grid = [round(10 ** (k / STEPS_PER_DECADE), 10) for k in range(low, high + 1)]
    return [t for t in grid if not any(math.isclose(t, float(d)) for d in declared)]


def _half_decade(t: float) -> bool:
    steps = math.log10(t) * STEPS_PER_DECADE
    return math.isclose(steps, round(steps), abs_tol=1e-6) and round(steps) % (STEPS_PER_DECADE // 2) == 0


def _shown(rows: pd.DataFrame) -> list[str]:
    return [format_with(e, lo, hi)[0] for e, lo, hi in zip(rows["estimate"], rows["ci_low"], rows["ci_high"])]


def _both_ways(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Each comparison as seen from either side (``markdown_tables.oriented``): the matrix reads row - column."""
    if verdicts.empty:
        return verdicts
    records = []
    for row in verdicts.to_dict("records"):
        records.append(row)
        records.append(T.oriented(row, row["method_b"]))
    return pd.DataFrame(records)


def other_reading(reading: Reading, times=None) -> Reading:
    """The reading the page offers beside the report's: the time marks, or each method's largest budget."""
    if reading.axis == "time":
        return Reading("max_budget", (), "offered", "offered beside the report's reading")
    return Reading("time", tuple(float(t) for t in (times or DECLARED_TIMES)), "offered",
                   "offered beside the report's reading")


def _analysed(frame, metrics, reading: Reading, provenance: dict, **options) -> dict:
    """One reading's tables: aggregates, leaderboard rows, verdicts and ranks at its marks
    (``options["aggregated"]``: the other reading's analysis, its aggregates reused)."""
    analysis, marks, headline = run_analysis(frame, metrics, reading=reading, **options)
    boards = [T.leaderboard(analysis.aggregates, metrics, mark, provenance) for mark in marks]
    verdicts = T.verdicts(analysis.comparisons, [m for m in metrics if comparable(m)], marks)
    ranks = analysis.ranks
    if not ranks.empty:
        ranks = pd.concat([m.select(ranks) for m in marks] or [ranks.iloc[:0]], ignore_index=True)
    return {"analysis": analysis, "marks": marks, "headline": headline, "boards": boards, "verdicts": verdicts,
            "ranks": ranks}


def scope_data(frame: pd.DataFrame, *, metrics=None, times=None, statistic: str = "meta",
               confirmatory=(), seed: int = 0, n_resamples: int = 1000, time_axis: pd.DataFrame | None = None,
               at_budget: str | None = None, reading: Reading | None = None) -> dict:
    """One scope's numbers (every set together, or one set): leaderboard, curves, verdicts, ranks,
    per-set values, the report's accuracy-size and distributions tables (``srbf.report.pictures``,
    each method at its largest complete budget), and the descriptive in-between reads, in both readings: the report's
    (``reading``, else ``srbf.stats.reading.choose_reading`` of ``times`` and ``at_budget``, as
    ``srbf analyze`` chooses it) and the other one (:func:`other_reading`), each analysed as the
    report would analyse it, so the report's rows are the report's to the last digit. ``time_axis``:
    a timing readout's times in place of the measured ones (``srbf.report.readings.run_analysis``)."""
    metrics = choose_metrics(frame, metrics)
    provenance = provenance_labels(frame)
    confirmatory = [pair for pair in confirmatory if set(pair) <= set(provenance)]  # a set some method skipped
    if reading is None:
        reading = reading_of(frame, times=times, at_budget=at_budget, time_axis=time_axis)
    same = {"statistic": statistic, "seed": seed, "n_resamples": n_resamples, "time_axis": time_axis,
            "confirmatory": confirmatory}
    report = _analysed(frame, metrics, reading, provenance, times=times, **same)
    other = _analysed(frame, metrics, other_reading(reading, times), provenance, times=times,
                      aggregated=report["analysis"], **same)
    marks = report["marks"] + [m for m in other["marks"] if m not in report["marks"]]
    boards = report["boards"] + [b for m, b in zip(other["marks"], other["boards"]) if m not in report["marks"]]
    board = pd.concat(boards, ignore_index=True) if boards else pd.DataFrame()
    theirs = other["verdicts"]
    if not theirs.empty and "same_configuration" in theirs:  # the same-configuration rows: the report's
        theirs = theirs[~(theirs["same_configuration"].astype(bool) & (theirs["axis"] == "budget"))]
    verdicts = pd.concat([v for v in (report["verdicts"], theirs) if not v.empty] or [report["verdicts"]],
                         ignore_index=True)
    ranks = pd.concat([r for r in (report["ranks"], other["ranks"]) if not r.empty] or [report["ranks"]],
                      ignore_index=True)
    key = ["axis", "time", "budget", "method", "metric"]
    curves = pd.concat([report["analysis"].aggregates, other["analysis"].aggregates], ignore_index=True)
    curves = curves.drop_duplicates(subset=key).reindex(columns=list(CURVE_COLUMNS))
    curves["shown"] = _shown(curves) if len(curves) else []
    analysis = report["analysis"]

    ranks["summary"] = [T.rank_summary(row) for _, row in ranks.iterrows()] if len(ranks) else []
    order = {mark.label: T.method_order(mark.select(board), metrics[0]) for mark in marks if not board.empty}
    time_marks = [m for m in marks if m.axis == "time"]
    slider = [{"label": m.label, "x": m.x, "declared": True} for m in time_marks]
    between = {"leaderboard": table(pd.DataFrame()), "cells": table(pd.DataFrame())}
    if time_marks:
        grid = time_grid(analysis.aggregates, [m.x for m in time_marks])
        if grid:  # the same analysis at in-between times; no ranks there (they are quoted at marks only)
            same = {"statistic": statistic, "seed": seed, "n_resamples": n_resamples, "time_axis": time_axis,
                    "confirmatory": confirmatory_pairs(frame, confirmatory)}
            extra = analyze(frame, metrics, times=grid, parts=("aggregates",), **same)
            grid_marks = [T.Mark("time", t) for t in grid]
            rows = [T.leaderboard(extra.aggregates, metrics, mark, provenance) for mark in grid_marks]
            between["leaderboard"] = table(pd.concat(rows, ignore_index=True))
            order.update({m.label: T.method_order(r, metrics[0]) for m, r in zip(grid_marks, rows)})
            slider = sorted(slider + [{"label": m.label, "x": m.x, "declared": False} for m in grid_marks],
                            key=lambda s: s["x"])
            halves = [t for t in grid if _half_decade(t)]  # the Delta curves need fewer points than the slider
            if halves:
                paired = analyze(frame, metrics, times=halves, parts=("comparisons",), **same).comparisons
                cells = T.verdicts(paired, [m for m in metrics if comparable(m)], [T.Mark("time", t) for t in halves])
                between["cells"] = table(_both_ways(cells), BETWEEN_COLUMNS)
    slider += [{"label": m.label, "x": None, "declared": True} for m in marks if m.axis != "time"]
    groups = []  # the CD diagram's bars, as the report draws them (srbf.stats.ranks.cd_groups)
    where = [f"{a}:{t}:{b}" for a, t, b in zip(ranks["axis"].tolist(), ranks["time"].tolist(), ranks["budget"].tolist())]
    for _, rows in (ranks.groupby([ranks["metric"].tolist(), where], sort=False) if len(ranks) else []):
        metric = rows["metric"].iloc[0]
        rows = rows.sort_values(["mean_rank", "method"])
        first = rows.iloc[0]
        bars = cd_groups(rows["mean_rank"].to_numpy(dtype=float), float(first["cd"])) if first["significant"] else []
        names = list(rows["method"])
        groups.append({"metric": metric, "axis": first["axis"], "time": first["time"], "budget": first["budget"],
                       "groups": [[names[i] for i in bar] for bar in bars]})
    readings = {report_mark.label: "report" for report_mark in report["marks"]}
    budgets = T.largest_complete_budgets(analysis.aggregates)  # the report's pictures: each at its largest budget
    points = distribution_points(frame, budgets)
    return {
        "metrics": metrics,
        "metric_info": metric_info(metrics),
        "provenance": provenance,
        "label_note": label_note(provenance),  # the footnote of comparisons between differently labelled methods
        "methods": sorted(frame["method"].astype(str).unique()),
        "statistic": statistic,
        "reading": reading.to_dict(),
        "other_reading": other_reading(reading, times).to_dict(),
        "marks": [{"axis": m.axis, "x": m.x, "label": m.label, "reading": readings.get(m.label, "other")}
                  for m in marks],
        "headline": None if report["headline"] is None else report["headline"].label,
        "rank_metric": T.RANK_METRIC,
        "leaderboard": table(board),
        "curves": table(curves),
        "cells": table(_both_ways(verdicts), CELL_COLUMNS),
        "ranks": table(ranks, RANK_COLUMNS),
        "rank_groups": groups,
        "budget_units": budget_units(frame),
        "order": order,
        "slider": slider,
        "per_set": table(T.per_set(analysis, metrics)),
        "time_axis": table(analysis.time_axis),
        "between": between,
        "pareto": table(pareto_table(frame, budgets, seed=seed, n_resamples=n_resamples)),
        "distribution_points": table(points, POINT_COLUMNS),
        "distribution_boxes": table(distribution_boxes(points)),
        "picture_limits": {metric: {"side": side, "value": value} for metric, (side, value) in LIMITS.items()},
    }
