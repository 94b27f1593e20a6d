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

import functools
import itertools
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from srbf.stats.bootstrap import bootstrap_median
from srbf.stats.cube import Cube, build_cube
from srbf.stats.median import set_weighted_median_rows
from srbf.stats.meta import combine_summaries, set_summaries
from srbf.stats.multiple import benjamini_hochberg, holm
from srbf.stats.paired import compare_arrays, draw_summary, sign_matrix, verdict
from srbf.stats.ranks import friedman_nemenyi
from srbf.stats.rules import RULES, MetricRule, apply_rule, clip_difference, clip_to_bounds, mean_eligible, rule_for
from srbf.stats.timeaxis import DECLARED_TIMES, blend, first_half, half_fraction, ladder_times, time_weights
from srbf.stats.errors import StatsError


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


def per_problem_values(frame: pd.DataFrame, metric: str, rules: dict[str, MetricRule] | None = None) -> pd.DataFrame:
    """Each method's value of ``metric`` on each problem at each budget, its draws averaged as the
    aggregates' median reads them: the metric's failure rule and floor applied, the draws' mean
    over the values the mean admits, or, when a problem has none (every draw +-inf), the draws'
    mean with the infinities kept. Columns method, budget, catalog, problem_id, value (NaN: no
    usable draw, e.g. every fit failed, or no row). One row per method, budget and problem of the
    frame's universe, so a figure can count what is missing."""
    columns = [metric] + (["success"] if "success" in frame.columns and metric != "success" else [])
    cube = build_cube(frame, columns)
    values = _per_problem(cube, rule_for(metric, rules)).median
    M, B, P = values.shape
    return pd.DataFrame({
        "method": np.repeat(np.asarray(cube.methods, dtype=object), B * P),
        "budget": np.tile(np.repeat(cube.budgets, P), M),
        "catalog": np.tile(np.asarray(cube.catalogs, dtype=object)[cube.set_codes], M * B),
        "problem_id": np.tile(cube.problem_ids, M * B),
        "value": values.ravel(),
    })


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
    for key in ("estimate", "ci_low", "ci_high", "prediction_low", "prediction_high", "median"):
        if key in combined:
            combined[key] = clip_to_bounds(rule, combined[key])  # R² <= 1, a rate in [0, 1]
    combined["set_mean"], combined["set_var"], combined["set_count"] = mean, var, count
    return combined


def _aggregate_once(setup: _Setup, rule: MetricRule, rows_mean: np.ndarray, rows_median: np.ndarray) -> dict:
    """``_aggregate`` of these values, combined once per analysis: a time mark past a method's last
    budget carries that budget's values (and every later mark the same), and combining them again
    (Paule-Mandel's root per row) was most of the analysis of a one-budget report. The key is the
    values' bytes, so only the very same numbers share a result."""
    key = (rule.name, rows_mean.shape, rows_mean.tobytes(), rows_median.tobytes())
    found = setup.aggregated.get(key)
    if found is None:
        found = setup.aggregated[key] = _aggregate(rows_mean, rows_median, setup.cube, rule, setup.statistic,
                                                   setup.alpha, setup.n_resamples, setup.seed)
    return found


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


@dataclass
class _Setup:
    """What every metric's pass shares: the arrays, the time axis, the marks and the options."""

    cube: Cube
    seconds: np.ndarray  # (M, B) time coordinate of each budget
    finished: np.ndarray  # (M, B, P) the problem has at least one finished draw
    complete: np.ndarray  # (M, B) every problem of every selected set is finished
    marks: list  # (axis, x, lo, hi, fraction, status, shift): where each method stands at each mark
    is_confirmatory: Callable[[str, str], bool]
    statistic: str
    alpha: float
    n_resamples: int
    seed: int
    is_same: Callable[[str, str], bool]  # two entries of one adapter: compared at equal budget
    aggregated: dict = field(default_factory=dict)  # what _aggregate_once has combined, by metric and values

    @functools.cached_property
    def signs(self) -> tuple[np.ndarray, np.ndarray]:
        """The two sign matrices every batch of comparisons shares, drawn on first use: a report of
        one method compares nothing, and drawing them is a visible share of its time."""
        n_problems = self.cube.shape[2]
        return tuple(sign_matrix(self.n_resamples, n_problems, self.seed + i) for i in (0, 1))


@dataclass
class _AtMark:
    """Every method's per-problem values at one mark (a time, or a budget)."""

    axis: str
    x: float
    status: np.ndarray  # (M,) measured | interpolated | max_tested | n/a
    mean: np.ndarray  # (M, P)
    median: np.ndarray  # (M, P)
    noise: np.ndarray  # (M, P)
    time_noise: np.ndarray  # (M, P) value moved by the time axis of one half of the draws vs the other
    done: np.ndarray  # (M,) both bracketing budgets complete

    def place(self) -> dict:
        return {"axis": self.axis, "time": self.x if self.axis == "time" else np.nan,
                "budget": self.x if self.axis == "budget" else np.nan}


def analyze(frame: pd.DataFrame, metrics: Iterable[str] | None = None, *, times: Iterable[float] = DECLARED_TIMES,
            compare_at: str = "time", confirmatory: Iterable[tuple[str, str]] | Callable | None = None,
            same_configuration: Iterable[tuple[str, str]] | Callable | None = None,
            rules: dict[str, MetricRule] | None = None, overlap_failures: str = "zero", statistic: str = "meta",
            alpha: float = 0.05, n_resamples: int = 1000, seed: int = 0, low_share: float = 0.9,
            time_axis: pd.DataFrame | None = None,
            parts: Iterable[str] = ("aggregates", "comparisons", "ranks")) -> Analysis:
    """Aggregates, per-set values, paired comparisons and ranks from a long per-prediction frame.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per prediction: ``method``, ``catalog``, ``catalog_version``, ``problem_id``,
        ``draw``, ``budget``, ``seconds``, ``success`` and metric columns (``metrics_long_frame``
        of a scored store gives it).
    metrics : iterable of str, optional
        The metric columns (default: every column of the frame that srbf's rules table knows).
    times : iterable of float, default (1, 10, 100, 1000)
        The declared time marks in seconds; verdicts and ranks are issued there.
    compare_at : {"time", "budget"}, default "time"
        "time": comparisons and ranks at each time mark, each method interpolated in log time;
        "budget": at each budget, the same configuration on both sides (ablations).
    confirmatory : iterable of (str, str) or callable, optional
        The declared confirmatory pairs of methods (or a function (a, b) -> bool): their
        p-values are Holm-corrected per metric, all others Benjamini-Hochberg-corrected.
    same_configuration : iterable of (str, str) or callable, optional
        Pairs of methods that are two entries of one adapter (ablations, repeats): with
        compare_at="time" they are compared at each budget both ran instead of at the time marks.
    rules : dict of str to MetricRule, optional
        Overrides of the rules table (srbf.stats.rules).
    overlap_failures : {"zero", "omit"}, default "zero"
        What a failed prediction counts as on the overlap metrics.
    statistic : {"meta", "bootstrap"}, default "meta"
        Sets combined with Paule-Mandel weights, or the expression bootstrap pooled over sets.
    alpha : float, default 0.05
        The level of every interval and test.
    n_resamples : int, default 1000
        Resamples of the bootstrap and of the noise margin.
    seed : int, default 0
        Seeds every resampling, so the same frame gives the same tables.
    low_share : float, default 0.9
        The share of problems below which a value is flagged.
    time_axis : pandas.DataFrame, optional
        (method, budget, seconds) replacing the median seconds of usable predictions.
    parts : iterable of str, default ("aggregates", "comparisons", "ranks")
        Which tables to compute ("aggregates" brings ``per_set``).

    Returns
    -------
    Analysis
        ``aggregates`` (a value with its interval per method, metric and mark), ``per_set``,
        ``comparisons`` (one row per pair: delta, interval, noise margin, verdict, p-values),
        ``ranks`` (mean ranks, Friedman test, critical difference) and ``time_axis``.
        docs/statistics.md lists every column.

    Raises
    ------
    StatsError
        An unknown ``parts``, ``statistic`` or ``compare_at``, no metric column, or a frame the
        statistics cannot pair (two versions of a catalog, missing columns).

    Notes
    -----
    Comparisons cover metrics with a direction whose primary summary is the mean; A is the method
    first in sorted order and Delta = A - B; every comparison row says whether the pair is one
    configuration (column ``same_configuration``). Two entries of one adapter are compared at
    equal budget, not equal time (seed 000): at equal time two factors would vary at once.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame([
    ...     {"method": method, "catalog": "nguyen", "catalog_version": 1, "problem_id": f"p{i:02d}",
    ...      "draw": draw, "budget": 1.0, "seconds": 1.0, "success": 1.0,
    ...      "nrr_validation": float(i < (16 if method == "good" else 4) or (i + draw) % 5 == 0)}
    ...     for method in ("good", "poor") for i in range(20) for draw in (0, 1)])
    >>> result = analyze(frame, ["nrr_validation"], compare_at="budget")
    >>> result.aggregates.query("axis == 'budget'")[["method", "estimate"]].round(2).values.tolist()
    [['good', 0.82], ['poor', 0.37]]
    >>> result.comparisons[["method_a", "method_b", "delta"]].round(2).values.tolist()
    [['good', 'poor', 0.45]]
    >>> result.ranks[["method", "mean_rank"]].values.tolist()
    [['good', 1.2], ['poor', 1.8]]
    """
    parts = set(parts)
    if parts - {"aggregates", "comparisons", "ranks"}:
        raise StatsError(f"parts must be among 'aggregates', 'comparisons', 'ranks', got {sorted(parts)}")
    if statistic not in ("meta", "bootstrap"):
        raise StatsError(f"statistic must be 'meta' or 'bootstrap', got {statistic!r}")
    if compare_at not in ("time", "budget"):
        raise StatsError(f"compare_at must be 'time' or 'budget', got {compare_at!r}")
    known = set(RULES) | set(rules or {})
    metrics = [c for c in frame.columns if c in known] if metrics is None else list(metrics)
    if not metrics:
        raise StatsError("no metric columns: name them with metrics=[...]")
    extra = [c for c in ("success", "seconds") if c in frame.columns and c not in metrics]
    cube = build_cube(frame, list(dict.fromkeys(metrics + extra)))
    setup = _setup(cube, [float(t) for t in times], compare_at, time_axis, confirmatory, statistic, alpha,
                   n_resamples, seed, same_configuration)

    aggregate_rows, set_rows, comparison_rows, rank_rows = [], [], [], []
    for name in metrics:
        rule = rule_for(name, rules, overlap_failures=overlap_failures)
        values = _per_problem(cube, rule)
        marks = [_values_at(setup, values, mark) for mark in setup.marks]
        if "aggregates" in parts:
            _budget_aggregates(setup, rule, values, aggregate_rows, set_rows)
            for at in marks:
                if at.axis == "time":
                    _mark_aggregates(setup, rule, at, aggregate_rows)
        timed_on_time = rule.kind == "time" and compare_at == "time"  # seconds at equal seconds: meaningless
        comparable = rule.better is not None and rule.primary == "mean" and not timed_on_time
        for at in marks:
            if at.axis == compare_at:
                if "comparisons" in parts and comparable:
                    _comparisons(setup, rule, at, comparison_rows, same=compare_at == "budget")
                if "ranks" in parts and rule.rank is not None:
                    _ranks(setup, rule, at, rank_rows)
            elif at.axis == "budget" and "comparisons" in parts and comparable:  # the same-configuration pairs
                _comparisons(setup, rule, at, comparison_rows, same=True, only_same=True)

    aggregates = pd.DataFrame(aggregate_rows)
    if not aggregates.empty:
        P = cube.shape[2]
        resolved = {m: rule_for(m, rules, overlap_failures=overlap_failures) for m in metrics}
        aggregates["n_universe"] = P
        aggregates["share"] = aggregates["n_problems"] / P
        aggregates["low_share"] = aggregates["share"] < low_share
        aggregates["statistic"] = statistic
        aggregates["primary"] = aggregates["metric"].map(lambda m: resolved[m].primary)
        aggregates["scale"] = aggregates["metric"].map(lambda m: resolved[m].scale)
    M, B = setup.seconds.shape
    time_rows = [{"method": cube.methods[m], "budget": float(cube.budgets[b]), "seconds": setup.seconds[m, b]}
                 for m in range(M) for b in range(B) if setup.finished[m, b].any()]
    return Analysis(aggregates, pd.DataFrame(set_rows), correct(pd.DataFrame(comparison_rows)),
                    pd.DataFrame(rank_rows), pd.DataFrame(time_rows))


def _setup(cube: Cube, times: list[float], compare_at: str, time_axis, confirmatory, statistic: str, alpha: float,
           n_resamples: int, seed: int, same_configuration=None) -> _Setup:
    M, B, _, _ = cube.shape
    if time_axis is not None:
        seconds = np.full((M, B), np.nan)
        m_index = {m: i for i, m in enumerate(cube.methods)}
        b_index = {b: i for i, b in enumerate(cube.budgets)}
        for row in time_axis.itertuples(index=False):
            if row.method in m_index and float(row.budget) in b_index:
                seconds[m_index[row.method], b_index[float(row.budget)]] = float(row.seconds)
    elif "seconds" in cube.columns:
        seconds = ladder_times(cube.columns["seconds"], cube.columns.get("success"))
    else:
        seconds = np.full((M, B), np.nan)
    finished = cube.present.any(-1)
    halves = None  # each half of the draws' own time axis: how far timing noise moves a time mark
    if time_axis is None and "seconds" in cube.columns:
        first = first_half(cube.present)
        halves = [ladder_times(np.where(half, cube.columns["seconds"], np.nan), cube.columns.get("success"))
                  for half in (first, cube.present & ~first)]
    marks = []
    for t in times:
        lo, hi, fraction, status = map(np.array, zip(*[time_weights(seconds[m], t) for m in range(M)]))
        shift = np.zeros(M)
        for m in np.flatnonzero((status == "interpolated") & (halves is not None)):
            shift[m] = np.nan_to_num(half_fraction(halves[0][m], lo[m], hi[m], t)
                                     - half_fraction(halves[1][m], lo[m], hi[m], t))
        marks.append(("time", t, lo, hi, fraction, status, shift))
    is_same = _confirmatory_test(same_configuration)
    same_pairs = any(is_same(a, b) for a, b in itertools.combinations(cube.methods, 2))
    if compare_at == "budget" or same_pairs:
        for b in range(B):
            status = np.where(finished[:, b].any(-1), "measured", "n/a")
            marks.append(("budget", float(cube.budgets[b]), np.full(M, b), np.full(M, b), np.zeros(M), status,
                          np.zeros(M)))
    return _Setup(cube, seconds, finished, finished.all(-1), marks, _confirmatory_test(confirmatory),
                  statistic, alpha, n_resamples, seed, is_same)


def _values_at(setup: _Setup, values: _Metric, mark) -> _AtMark:
    """Each method's per-problem values at a mark, blended between its bracketing budgets."""
    axis, x, lo, hi, fraction, status, shift = mark
    ok = status != "n/a"
    m = np.arange(len(status))
    lo, hi = np.where(ok, lo, 0), np.where(ok, hi, 0)

    def at(array):
        return np.where(ok[:, None], blend(array[m, lo], array[m, hi], fraction[:, None]), np.nan)

    with np.errstate(invalid="ignore"):
        slope = values.mean[m, hi] - values.mean[m, lo]
        moved = np.where(ok[:, None] & (shift[:, None] != 0), shift[:, None] * slope, 0.0)
    done = ok & setup.complete[m, lo] & setup.complete[m, hi]
    return _AtMark(axis, x, status, at(values.mean), at(values.median), at(values.noise), moved, done)


def _budget_aggregates(setup: _Setup, rule: MetricRule, values: _Metric, rows: list, set_rows: list) -> None:
    cube = setup.cube
    M, B, P, _ = cube.shape
    agg = _aggregate_once(setup, rule, values.mean.reshape(M * B, P), values.median.reshape(M * B, P))
    for r, (m, b) in enumerate(itertools.product(range(M), range(B))):
        if not setup.finished[m, b].any():
            continue
        budget = float(cube.budgets[b])
        row = {"axis": "budget", "budget": budget, "time": np.nan, "status": "measured", "method": cube.methods[m],
               "metric": rule.name, "seconds": setup.seconds[m, b], "complete": bool(setup.complete[m, b])}
        row.update({key: agg[key][r] for key in _AGGREGATE_COLUMNS})
        rows.append(row)
        for s, catalog in enumerate(cube.catalogs):
            if agg["set_count"][r, s] > 0:
                set_rows.append({"method": cube.methods[m], "budget": budget, "metric": rule.name, "catalog": catalog,
                                 "catalog_version": cube.versions[str(catalog)],
                                 "mean": _back(rule, agg["set_mean"][r, s]), "sd": np.sqrt(agg["set_var"][r, s]),
                                 "n_problems": int(agg["set_count"][r, s]), "weight": agg["weights"][r, s]})


def _mark_aggregates(setup: _Setup, rule: MetricRule, at: _AtMark, rows: list) -> None:
    agg = _aggregate_once(setup, rule, at.mean, at.median)
    for m, method in enumerate(setup.cube.methods):
        row = {**at.place(), "status": at.status[m], "method": method, "metric": rule.name, "seconds": at.x,
               "complete": bool(at.done[m])}
        row.update({key: agg[key][m] for key in _AGGREGATE_COLUMNS})
        rows.append(row)


def _comparisons(setup: _Setup, rule: MetricRule, at: _AtMark, rows: list, same: bool, only_same: bool = False) -> None:
    """Every pair of methods at one mark; a pair with an n/a side gets verdict n/a and no statistics.
    At a time mark the same-configuration pairs are left out (``same`` False); at a budget mark added
    for them (``only_same``) only they are compared."""
    cube = setup.cube
    pairs = [(i, j) for i, j in itertools.combinations(range(len(cube.methods)), 2)
             if same or not setup.is_same(cube.methods[i], cube.methods[j])]
    if only_same:
        pairs = [(i, j) for i, j in pairs if setup.is_same(cube.methods[i], cube.methods[j])]
    live = [(i, j) for i, j in pairs if at.status[i] != "n/a" and at.status[j] != "n/a"]
    position = {pair: k for k, pair in enumerate(live)}
    if live:
        I, J = np.array(live).T
        result = compare_arrays(at.mean[I], at.mean[J], at.noise[I], at.noise[J], cube.set_codes, cube.n_sets,
                                rate=rule.kind == "rate", alpha=setup.alpha, seed=setup.seed, signs=setup.signs,
                                time_noise=(at.time_noise[I], at.time_noise[J]))
    for i, j in pairs:
        a, b = cube.methods[i], cube.methods[j]
        row = {**at.place(), "metric": rule.name, "method_a": a, "method_b": b, "status_a": at.status[i],
               "status_b": at.status[j], "complete": bool(at.done[i] and at.done[j]),
               "test": "mcnemar_exact" if rule.kind == "rate" else "wilcoxon_pratt",
               "confirmatory": setup.is_confirmatory(a, b), "same_configuration": setup.is_same(a, b)}
        k = position.get((i, j))
        if k is None:
            row.update(verdict="n/a", verdict_note="cannot run within t")
        else:
            row.update({key: value[k] for key, value in result.items()})
            row["ci_low"], row["ci_high"] = (float(clip_difference(rule, row[key])) for key in ("ci_low", "ci_high"))
            call, note = verdict(row["ci_low"], row["ci_high"], row["margin"], rule.higher_is_better,
                                 at.status[i] == "max_tested", at.status[j] == "max_tested", row["identical"])
            if row["n_pairs"] == 0:  # no problem valued on both sides: a side returned no usable formula
                call, note = "undecided", "n = 0"
            row.update(verdict=call, verdict_note=note)
        rows.append(row)


def _ranks(setup: _Setup, rule: MetricRule, at: _AtMark, rows: list) -> None:
    """Friedman and Nemenyi over the methods that can run at the mark (failures last, or, for
    property metrics, only the problems every one of them solved)."""
    roster = [m for m in range(len(at.status)) if at.status[m] != "n/a"]
    if len(roster) < 2:
        return
    matrix = at.median[roster].T  # problems x methods
    if rule.rank == "property":
        matrix = matrix[~np.isnan(matrix).any(axis=1)]
    if matrix.shape[0] == 0:
        return
    result = friedman_nemenyi(matrix, alpha=setup.alpha, higher_is_better=rule.higher_is_better)
    member = {m: "" for m in roster}
    for g, group in enumerate(result["groups"]):
        for column in group:
            member[roster[column]] += _letters(g)
    population = "problems every method solved" if rule.rank == "property" else "all problems"
    for column, m in enumerate(roster):
        rows.append({**at.place(), "metric": rule.name, "method": setup.cube.methods[m],
                     "mean_rank": result["mean_ranks"][column], "status": at.status[m], "complete": bool(at.done[m]),
                     "k": result["k"], "n_problems": result["n_problems"], "population": population,
                     "friedman_statistic": result["statistic"], "p_value": result["p_value"], "cd": result["cd"],
                     "significant": result["significant"], "groups": member[m]})


def correct(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Holm within each metric's confirmatory family, Benjamini-Hochberg within the rest (every row
    of ``comparisons`` is one test; its ``p_adjusted``, ``family`` and ``correction`` are set)."""
    if comparisons.empty:
        return comparisons
    if "p_value" not in comparisons:
        comparisons["p_value"] = np.nan
    comparisons["p_adjusted"] = np.nan
    kind = np.where(comparisons["confirmatory"], "confirmatory:", "exploratory:")
    comparisons["family"] = kind + comparisons["metric"]
    comparisons["correction"] = np.where(comparisons["confirmatory"], "holm", "benjamini-hochberg")
    for family, index in comparisons.groupby("family").groups.items():
        p = comparisons.loc[index, "p_value"].to_numpy(dtype=float)
        adjust = holm if family.startswith("confirmatory:") else benjamini_hochberg
        comparisons.loc[index, "p_adjusted"] = adjust(p)
    return comparisons
