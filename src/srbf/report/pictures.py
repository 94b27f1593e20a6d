"""The numbers behind the two pictures SR readers expect, shared by the report and the explorer
(no matplotlib here): accuracy against formula size with its Pareto front, and the per-problem
distributions of R² and log10 FVU.

Both read every method at its own largest complete budget (as the per-set tables and
``--at-budget max`` do) and take one value per problem, its draws averaged by the metric's own
rule (``srbf.stats.per_problem_values``): a failed fit has no R², FVU or length, so it is
*missing* there, as in every diagnostic of the report, and a problem whose every draw failed is
counted as missing, never made up. Values beyond what a plot can show are clipped to a documented
floor or ceiling and counted.

Accuracy is the **median R² on the validation points**, not the median rank: a value does not
move when another method joins the store, reads on the scale of the distributions figure next to
it, and is what SRBench's accuracy threshold (R² > 0.999) is stated in. Size is the median
``token_count_prediction`` (the judge's formula length in tokens). Intervals: 95 % percentile
bootstrap of the median over problems (``srbf.stats.bootstrap_median``, seeded).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from srbf.stats import bootstrap_median, per_problem_values

ACCURACY = "r2_validation"
SIZE = "token_count_prediction"
FIT = "log10_fvu_validation"
R2_FLOOR = -1.0  # R² below it (FVU above 2, -inf for a formula that blew up) is drawn at it
LOG10_FVU_CEILING = 2.0  # log10 FVU above it (FVU over 100, +inf) is drawn at it
LOW_SHARE = 0.9  # fewer problems than this share behind a point: drawn hollow, as in the curves
LIMITS = {ACCURACY: ("floor", R2_FLOOR), FIT: ("ceiling", LOG10_FVU_CEILING)}

PARETO_COLUMNS = ("method", "budget", "accuracy", "accuracy_low", "accuracy_high", "size", "size_low", "size_high",
                  "n_accuracy", "n_size", "n_universe", "n_clipped", "low_share", "placed", "on_front", "note")


def values_at_budgets(frame: pd.DataFrame, metric: str, budgets: dict) -> pd.DataFrame:
    """One value of ``metric`` per method and problem (method, budget, catalog, problem_id,
    value), each method at ``budgets[method]``; every problem of the frame is listed, NaN where the
    method has no usable value there."""
    rows = per_problem_values(frame, metric)
    chosen = rows["method"].astype(str).map(budgets)
    return rows[rows["budget"].to_numpy(dtype=float) == chosen.to_numpy(dtype=float)].reset_index(drop=True)


def pareto_table(frame: pd.DataFrame, budgets: dict, *, seed: int = 0, n_resamples: int = 1000) -> pd.DataFrame:
    """Per method: median R² (validation) and median formula size, each with its 95 % bootstrap
    interval, the counts behind them, and whether the method is on the front (no other method has
    at least its R² at no more than its size, better in one). A method without any R² or size (a
    reference that returns no formula, or fails everywhere) is listed, not placed (``note``
    says why). R² below :data:`R2_FLOOR` counts as the floor (``n_clipped``), so a median or an
    interval end at the floor reads "at or below it"."""
    methods = sorted(budgets)
    if not methods or ACCURACY not in frame.columns or SIZE not in frame.columns:
        return pd.DataFrame(columns=list(PARETO_COLUMNS))
    accuracy = values_at_budgets(frame, ACCURACY, budgets)
    size = values_at_budgets(frame, SIZE, budgets)
    universe = accuracy[["catalog", "problem_id"]].drop_duplicates().shape[0]
    records = []
    for method in methods:
        r2 = accuracy.loc[accuracy["method"] == method, "value"].to_numpy(dtype=float)
        tokens = size.loc[size["method"] == method, "value"].to_numpy(dtype=float)
        r2 = r2[~np.isnan(r2)]
        tokens = tokens[np.isfinite(tokens)]
        clipped = int((r2 < R2_FLOOR).sum())
        a = _median_interval(np.maximum(r2, R2_FLOOR), seed, n_resamples)
        s = _median_interval(tokens, seed, n_resamples)
        note = "" if r2.size and tokens.size else ("no usable fit" if not r2.size else "no formula size")
        records.append({"method": method, "budget": budgets[method],
                        "accuracy": a["median"], "accuracy_low": a["low"], "accuracy_high": a["high"],
                        "size": s["median"], "size_low": s["low"], "size_high": s["high"],
                        "n_accuracy": int(r2.size), "n_size": int(tokens.size), "n_universe": universe,
                        "n_clipped": clipped, "low_share": bool(r2.size < LOW_SHARE * universe),
                        "placed": not note, "note": note})
    table = pd.DataFrame(records)
    table["on_front"] = front(table["accuracy"].to_numpy(dtype=float), table["size"].to_numpy(dtype=float),
                              table["placed"].to_numpy(dtype=bool))
    return table.reindex(columns=list(PARETO_COLUMNS))


def _median_interval(values: np.ndarray, seed: int, n_resamples: int) -> dict:
    """The sample median and the 95 % percentile bootstrap interval of the median (NaN when empty)."""
    if values.size == 0:
        return {"median": np.nan, "low": np.nan, "high": np.nan}
    boot = bootstrap_median(values, n_resamples=n_resamples, seed=seed, statistic="median")
    return {"median": float(np.median(values)), "low": boot["low"], "high": boot["high"]}


def front(accuracy: np.ndarray, size: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """Which placed points no other placed point dominates (higher-or-equal accuracy at
    lower-or-equal size, strictly better in one of them). Equal points are all on the front."""
    out = np.zeros(len(accuracy), dtype=bool)
    for i in np.flatnonzero(placed):
        others = placed & (accuracy >= accuracy[i]) & (size <= size[i]) & ((accuracy > accuracy[i]) | (size < size[i]))
        out[i] = not others.any()
    return out


def distribution_points(frame: pd.DataFrame, budgets: dict) -> pd.DataFrame:
    """Every method's one value per problem of R² and of log10 FVU (validation points), with the
    value as drawn (``shown``: clipped to :data:`R2_FLOOR` / :data:`LOG10_FVU_CEILING`; NaN when
    missing), which limit clipped it, and the point's fixed horizontal offset (``jitter``, the
    same in the report and the explorer)."""
    parts = []
    for metric, (side, limit) in LIMITS.items():
        if metric not in frame.columns or not budgets:
            continue
        rows = values_at_budgets(frame, metric, budgets).sort_values(["method", "catalog", "problem_id"])
        value = rows["value"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            beyond = value < limit if side == "floor" else value > limit
        rows = rows.assign(metric=metric, shown=np.where(beyond, limit, value), clipped=np.where(beyond, side, ""))
        order = rows.groupby("method").cumcount().to_numpy()
        rows["jitter"] = np.round(((order * 0.6180339887) % 1.0 - 0.5) * 0.5, 3)  # golden-ratio spread in [-0.25, 0.25]
        parts.append(rows)
    columns = ["method", "budget", "metric", "catalog", "problem_id", "value", "shown", "clipped", "jitter"]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]


def distribution_boxes(points: pd.DataFrame) -> pd.DataFrame:
    """The box of each method and metric, over the values as drawn: quartiles (linear
    interpolation), whiskers to the furthest value within 1.5 IQR of the box (Tukey), and the
    counts the caption quotes (values, clipped, missing of the problems)."""
    records = []
    for (metric, method), rows in points.groupby(["metric", "method"], sort=True):
        shown = rows["shown"].to_numpy(dtype=float)
        x = np.sort(shown[~np.isnan(shown)])
        record = {"method": method, "metric": metric, "budget": float(rows["budget"].iloc[0]), "n": int(x.size),
                  "n_clipped": int((rows["clipped"] != "").sum()), "n_missing": int(np.isnan(shown).sum()),
                  "n_universe": len(rows)}
        if x.size:
            q1, median, q3 = np.percentile(x, [25, 50, 75])
            reach = 1.5 * (q3 - q1)
            record.update(q1=q1, median=median, q3=q3, whisker_low=float(x[x >= q1 - reach].min()),
                          whisker_high=float(x[x <= q3 + reach].max()))
        else:
            record.update(q1=np.nan, median=np.nan, q3=np.nan, whisker_low=np.nan, whisker_high=np.nan)
        records.append(record)
    columns = ["method", "metric", "budget", "n", "n_clipped", "n_missing", "n_universe", "q1", "median", "q3",
               "whisker_low", "whisker_high"]
    return pd.DataFrame(records, columns=columns)

