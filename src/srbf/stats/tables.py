"""From the long table of per-prediction metrics to the aggregates, comparisons and ranks tables.

:func:`analyze` is the one entry point the report and the CLI call. It takes a pandas DataFrame with
one row per prediction (columns method, catalog, catalog_version, problem_id, draw, budget, seconds,
success, and metric columns named as srbf.judge names them) and returns an :class:`Analysis`:

- ``aggregates``: every metric of every method at every budget, and at every declared time mark
  (interpolated in log time), combined across sets (or bootstrapped), with median and share;
- ``per_set``: each set's own average, spread and count, per method, budget and metric;
- ``comparisons``: every pair of methods at every time mark (or budget) on every metric with a
  direction, with Delta, interval, margin, verdict, MDE80, p-value and its corrected value;
- ``ranks``: mean ranks, Friedman test, critical difference and groups per time mark and metric;
- ``time_axis``: each method's seconds per budget (median over usable predictions).
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srbf.stats.bootstrap import bootstrap_median
from srbf.stats.cube import Cube, build_cube
from srbf.stats.median import set_weighted_median_rows
from srbf.stats.meta import combine_summaries, set_summaries
from srbf.stats.multiple import benjamini_hochberg, holm
from srbf.stats.paired import compare_arrays, draw_summary, sign_matrix, verdict
from srbf.stats.ranks import friedman_nemenyi
from srbf.stats.rules import RULES, MetricRule, apply_rule, mean_eligible, rule_for
from srbf.stats.timeaxis import DECLARED_TIMES, blend, budget_times, time_weights


@dataclass
class Analysis:
    """The tables :func:`analyze` produces (pandas DataFrames)."""

    aggregates: pd.DataFrame
    per_set: pd.DataFrame
    comparisons: pd.DataFrame
    ranks: pd.DataFrame
    time_axis: pd.DataFrame


@dataclass
class _Metric:
    rule: MetricRule
    mean: np.ndarray  # (M, B, P) per-problem means on the combining scale (log values for "log")
    median: np.ndarray  # (M, B, P) per-problem values for the median, natural scale, +-inf kept
    noise: np.ndarray  # (M, B, P) scaled split-half noise on the combining scale


def _per_problem(cube: Cube, rule: MetricRule) -> _Metric:
    success = cube.columns.get("success")
    x = apply_rule(rule, cube.columns[rule.name], success)
    x[~cube.present] = np.nan
    eligible = mean_eligible(rule, x)
    if rule.scale == "log":
        eligible = np.log(eligible)
    mean, noise, _ = draw_summary(eligible)
    natural = np.exp(mean) if rule.scale == "log" else mean
    with np.errstate(invalid="ignore"):
        fallback = np.where(np.isnan(x), 0.0, x).sum(-1) / (~np.isnan(x)).sum(-1)  # keeps an infinite draw
    return _Metric(rule, mean, np.where(np.isnan(natural), fallback, natural), noise)


def _back(rule: MetricRule, value):
    return np.exp(value) if rule.scale == "log" else value


def _aggregate(rows_mean, rows_median, cube: Cube, rule: MetricRule, statistic: str, alpha: float,
               n_resamples: int, seed: int) -> dict[str, np.ndarray]:
    mean, var, count = set_summaries(rows_mean, cube.set_codes, cube.n_sets)
    combined = combine_summaries(mean, var, count, scale=rule.scale, alpha=alpha)
    combined["median"] = set_weighted_median_rows(rows_median, cube.set_codes, combined["weights"])
    if statistic == "bootstrap":
        for key in ("tau2", "prediction_low", "prediction_high"):
            combined[key] = np.full(rows_mean.shape[0], np.nan)
        for r in range(rows_mean.shape[0]):
            boot = bootstrap_median(rows_mean[r], n_resamples=n_resamples, seed=seed, level=1 - alpha)
            combined["estimate"][r] = _back(rule, boot["median"])
            combined["ci_low"][r] = _back(rule, boot["low"])
            combined["ci_high"][r] = _back(rule, boot["high"])
    combined["set_mean"], combined["set_var"], combined["set_count"] = mean, var, count
    return combined


_AGGREGATE_COLUMNS = ("estimate", "ci_low", "ci_high", "tau2", "prediction_low", "prediction_high",
                      "n_sets", "n_problems", "median")


def _confirmatory_test(confirmatory) -> Callable[[str, str], bool]:
    if callable(confirmatory):
        return lambda a, b: bool(confirmatory(a, b))
    pairs = {frozenset(map(str, pair)) for pair in (confirmatory or ())}
    return lambda a, b: frozenset((str(a), str(b))) in pairs


def _letters(index: int) -> str:
    letters = string.ascii_lowercase
    return letters[index] if index < 26 else letters[index // 26 - 1] + letters[index % 26]


def analyze(frame: pd.DataFrame, metrics: Iterable[str] | None = None, *, times: Iterable[float] = DECLARED_TIMES,
            compare_at: str = "time", confirmatory: Iterable[tuple[str, str]] | Callable | None = None,
            rules: dict[str, MetricRule] | None = None, overlap_failures: str = "zero", statistic: str = "meta",
            alpha: float = 0.05, n_resamples: int = 1000, seed: int = 0, low_share: float = 0.9,
            time_axis: pd.DataFrame | None = None,
            parts: Iterable[str] = ("aggregates", "comparisons", "ranks")) -> Analysis:
    """Aggregates, per-set values, paired comparisons and ranks from a long per-prediction frame.

    metrics: the metric columns (default: every column of the frame that srbf's rules table knows).
    times: the declared time marks in seconds (verdicts and ranks are issued there).
    compare_at: "time" (comparisons and ranks at each time mark, each method interpolated in log
    time) or "budget" (at each budget every method shares, same configuration on both sides).
    confirmatory: the declared confirmatory pairs of methods (or a function (a, b) -> bool); their
    p-values are Holm-corrected per metric, all others Benjamini-Hochberg-corrected per metric.
    statistic: "meta" (sets combined with Paule-Mandel weights) or "bootstrap" (000's expression
    bootstrap, pooled over sets). time_axis: optional frame (method, budget, seconds) overriding the
    median seconds of usable predictions. parts: which of "aggregates" (with per_set),
    "comparisons" and "ranks" to compute (the others come back empty).
    """
    parts = set(parts)
    unknown_parts = parts - {"aggregates", "comparisons", "ranks"}
    if unknown_parts:
        raise ValueError(f"parts must be among 'aggregates', 'comparisons', 'ranks', got {sorted(unknown_parts)}")
    if statistic not in ("meta", "bootstrap"):
        raise ValueError(f"statistic must be 'meta' or 'bootstrap', got {statistic!r}")
    if compare_at not in ("time", "budget"):
        raise ValueError(f"compare_at must be 'time' or 'budget', got {compare_at!r}")
    known = set(RULES) | set(rules or {})
    metrics = [c for c in frame.columns if c in known] if metrics is None else list(metrics)
    if not metrics:
        raise ValueError("no metric columns: name them with metrics=[...]")
    extra = [c for c in ("success", "seconds") if c in frame.columns and c not in metrics]
    cube = build_cube(frame, list(dict.fromkeys(metrics + extra)))
    M, B, P, _ = cube.shape
    times = [float(t) for t in times]

    # the time axis: seconds per (method, budget)
    if time_axis is not None:
        seconds = np.full((M, B), np.nan)
        m_index = {m: i for i, m in enumerate(cube.methods)}
        b_index = {b: i for i, b in enumerate(cube.budgets)}
        for row in time_axis.itertuples(index=False):
            if row.method in m_index and float(row.budget) in b_index:
                seconds[m_index[row.method], b_index[float(row.budget)]] = float(row.seconds)
    elif "seconds" in cube.columns:
        seconds = budget_times(cube.columns["seconds"], cube.columns.get("success"), axis=(2, 3))
    else:
        seconds = np.full((M, B), np.nan)
    finished = cube.present.any(-1)
    complete = finished.all(-1)  # (M, B): every problem of every selected set has a finished draw

    marks = []  # (label, per-method lo, hi, fraction, status)
    for t in times:
        placed = [time_weights(seconds[m], t) for m in range(M)]
        marks.append(("time", t, *map(np.array, zip(*placed))))
    budget_marks = []
    for b in range(B):
        status = np.where(finished[:, b].any(-1), "measured", "n/a")
        budget_marks.append(("budget", float(cube.budgets[b]), np.full(M, b), np.full(M, b), np.zeros(M), status))

    signs = (sign_matrix(n_resamples, P, seed), sign_matrix(n_resamples, P, seed + 1))
    is_confirmatory = _confirmatory_test(confirmatory)
    aggregate_rows, set_rows, comparison_rows, rank_rows = [], [], [], []

    for name in metrics:
        rule = rule_for(name, rules, overlap_failures=overlap_failures)
        values = _per_problem(cube, rule)

        # aggregates at every budget
        agg = None if "aggregates" not in parts else _aggregate(values.mean.reshape(M * B, P), values.median.reshape(M * B, P), cube, rule,
                         statistic, alpha, n_resamples, seed)
        for r, (m, b) in enumerate(itertools.product(range(M), range(B))):
            if agg is None or not finished[m, b].any():
                continue
            row = {"axis": "budget", "budget": float(cube.budgets[b]), "time": np.nan, "status": "measured",
                   "method": cube.methods[m], "metric": name, "seconds": seconds[m, b], "complete": bool(complete[m, b])}
            row.update({key: agg[key][r] for key in _AGGREGATE_COLUMNS})
            aggregate_rows.append(row)
            for s, catalog in enumerate(cube.catalogs):
                n_s = agg["set_count"][r, s]
                if n_s == 0:
                    continue
                set_rows.append({"method": cube.methods[m], "budget": float(cube.budgets[b]), "metric": name,
                                 "catalog": catalog, "catalog_version": cube.versions[str(catalog)],
                                 "mean": _back(rule, agg["set_mean"][r, s]), "sd": np.sqrt(agg["set_var"][r, s]),
                                 "n_problems": int(n_s), "weight": agg["weights"][r, s]})

        # values of every method at every time mark (blended between its bracketing budgets)
        at_marks = []
        for axis, x, lo, hi, fraction, status in marks + (budget_marks if compare_at == "budget" else []):
            ok = status != "n/a"
            take = np.where(ok, lo, 0)
            m_idx = np.arange(M)
            mean = np.where(ok[:, None], blend(values.mean[m_idx, take], values.mean[m_idx, np.where(ok, hi, 0)], fraction[:, None]), np.nan)
            median = np.where(ok[:, None], blend(values.median[m_idx, take], values.median[m_idx, np.where(ok, hi, 0)], fraction[:, None]), np.nan)
            noise = np.where(ok[:, None], blend(values.noise[m_idx, take], values.noise[m_idx, np.where(ok, hi, 0)], fraction[:, None]), np.nan)
            done = ok & complete[m_idx, take] & complete[m_idx, np.where(ok, hi, 0)]
            at_marks.append((axis, x, status, mean, median, noise, done))

        for axis, x, status, mean, median, _, done in at_marks:
            if axis != "time" or "aggregates" not in parts:
                continue
            agg_t = _aggregate(mean, median, cube, rule, statistic, alpha, n_resamples, seed)
            for m in range(M):
                row = {"axis": "time", "budget": np.nan, "time": x, "status": status[m], "method": cube.methods[m],
                       "metric": name, "seconds": x, "complete": bool(done[m])}
                row.update({key: agg_t[key][m] for key in _AGGREGATE_COLUMNS})
                aggregate_rows.append(row)

        compare_marks = [mk for mk in at_marks if mk[0] == compare_at]
        if "comparisons" in parts and rule.better is not None and not (rule.kind == "time" and compare_at == "time"):
            for axis, x, status, mean, _, noise, done in compare_marks:
                pairs = list(itertools.combinations(range(M), 2))
                live = [(i, j) for i, j in pairs if status[i] != "n/a" and status[j] != "n/a"]
                result = None
                if live:
                    I, J = np.array(live).T
                    result = compare_arrays(mean[I], mean[J], noise[I], noise[J], cube.set_codes, cube.n_sets,
                                            rate=rule.kind == "rate", alpha=alpha, signs=signs)
                position = {pair: k for k, pair in enumerate(live)}
                for i, j in pairs:
                    row = {"axis": axis, "time": x if axis == "time" else np.nan, "budget": x if axis == "budget" else np.nan,
                           "metric": name, "method_a": cube.methods[i], "method_b": cube.methods[j],
                           "status_a": status[i], "status_b": status[j], "complete": bool(done[i] and done[j]),
                           "test": "mcnemar_exact" if rule.kind == "rate" else "wilcoxon_pratt",
                           "confirmatory": is_confirmatory(cube.methods[i], cube.methods[j])}
                    k = position.get((i, j))
                    if k is None:
                        row.update(verdict="n/a", verdict_note="cannot run within t")
                    else:
                        row.update({key: value[k] for key, value in result.items()})
                        call, note = verdict(row["ci_low"], row["ci_high"], row["margin"], rule.higher_is_better,
                                             status[i] == "max_tested", status[j] == "max_tested")
                        row.update(verdict=call, verdict_note=note)
                    comparison_rows.append(row)

        if "ranks" in parts and rule.rank is not None:
            for axis, x, status, _, median, _, done in compare_marks:
                roster = [m for m in range(M) if status[m] != "n/a"]
                if len(roster) < 2:
                    continue
                matrix = median[roster].T  # problems x methods
                if rule.rank == "property":
                    matrix = matrix[~np.isnan(matrix).any(axis=1)]
                if matrix.shape[0] == 0:
                    continue
                result = friedman_nemenyi(matrix, alpha=alpha, higher_is_better=rule.higher_is_better)
                member = {m: "" for m in roster}
                for g, group in enumerate(result["groups"]):
                    for col in group:
                        member[roster[col]] += _letters(g)
                for col, m in enumerate(roster):
                    rank_rows.append({
                        "axis": axis, "time": x if axis == "time" else np.nan, "budget": x if axis == "budget" else np.nan,
                        "metric": name, "method": cube.methods[m], "mean_rank": result["mean_ranks"][col],
                        "status": status[m], "complete": bool(done[m]), "k": result["k"],
                        "n_problems": result["n_problems"],
                        "population": "problems every method solved" if rule.rank == "property" else "all problems",
                        "friedman_statistic": result["statistic"], "p_value": result["p_value"],
                        "cd": result["cd"], "significant": result["significant"], "groups": member[m]})

    aggregates = pd.DataFrame(aggregate_rows)
    if not aggregates.empty:
        aggregates["n_universe"] = P
        aggregates["share"] = aggregates["n_problems"] / P
        aggregates["low_share"] = aggregates["share"] < low_share
        aggregates["statistic"] = statistic
        aggregates["primary"] = [rule_for(m, rules, overlap_failures=overlap_failures).primary for m in aggregates["metric"]]
        aggregates["scale"] = [rule_for(m, rules, overlap_failures=overlap_failures).scale for m in aggregates["metric"]]
    comparisons = _correct(pd.DataFrame(comparison_rows))
    time_rows = [{"method": cube.methods[m], "budget": float(cube.budgets[b]), "seconds": seconds[m, b]}
                 for m in range(M) for b in range(B) if finished[m, b].any()]
    return Analysis(aggregates, pd.DataFrame(set_rows), comparisons, pd.DataFrame(rank_rows), pd.DataFrame(time_rows))


def _correct(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Holm within each metric's confirmatory family, Benjamini-Hochberg within the rest."""
    if comparisons.empty:
        return comparisons
    if "p_value" not in comparisons:
        comparisons["p_value"] = np.nan
    comparisons["p_adjusted"] = np.nan
    comparisons["family"] = np.where(comparisons["confirmatory"], "confirmatory:", "exploratory:") + comparisons["metric"]
    comparisons["correction"] = np.where(comparisons["confirmatory"], "holm", "benjamini-hochberg")
    for family, index in comparisons.groupby("family").groups.items():
        p = comparisons.loc[index, "p_value"].to_numpy(dtype=float)
        adjust = holm if family.startswith("confirmatory:") else benjamini_hochberg
        comparisons.loc[index, "p_adjusted"] = adjust(p)
    return comparisons
