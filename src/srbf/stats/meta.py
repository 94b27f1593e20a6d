"""Combining problem sets: random-effects weights with Paule and Mandel's between-set variance.

Each set s contributes its average y_s over its n_s problems and the squared standard error of that
average, v_s = sigma_s^2 / n_s. The sets are combined with weights w_s = 1 / (tau^2 + v_s), tau^2
the between-set variance estimated by Paule and Mandel (the tau^2 at which the weighted sum of
squared deviations equals its expectation, k - 1). The 95 % interval holds the weights fixed and
counts only the variation within sets: theta +- t * sqrt(sum w_s^2 v_s) / sum w_s, with t on
sum(n_s - 1) degrees of freedom. The prediction interval for one more set (k >= 3) is
theta +- t_{k-2} * sqrt(tau^2 + 1 / sum w_s).

Scales: "identity"; "log" (the caller passes log values; results are exponentiated: geometric
means); "logit" (rates in [0, 1]: each set's average rate p_s goes to the log-odds scale, with the
delta-method variance v_s / (p_s (1 - p_s))^2; a set whose average is exactly 0 or 1 first gets
one pseudo-problem of value 1/2, the usual half-count continuity correction).

Everything here is vectorised over leading "row" axes, so a whole table is combined at once.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import special  # not scipy.stats: stdtrit is its t quantile, without its import time

from srbf.stats.errors import StatsError

_BISECTIONS = 120


def set_summaries(values: np.ndarray, set_codes: np.ndarray, n_sets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-set mean, variance (ddof 1; NaN below 2 values) and count of the non-NaN values.

    ``values`` has shape (R, P) (or (P,)); ``set_codes`` (P,) gives each column's set in
    0 .. n_sets - 1. Returns three arrays of shape (R, n_sets).
    """
    x = np.atleast_2d(np.asarray(values, dtype=float))
    codes = np.asarray(set_codes, dtype=np.intp)
    rows = x.shape[0]
    ok = ~np.isnan(x)
    index = (np.arange(rows)[:, None] * n_sets + codes[None, :]).ravel()
    size = rows * n_sets
    count = np.bincount(index, weights=ok.ravel(), minlength=size).reshape(rows, n_sets)
    total = np.bincount(index, weights=np.where(ok, x, 0.0).ravel(), minlength=size).reshape(rows, n_sets)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    deviation = np.where(ok, x - mean[:, codes], 0.0)
    squares = np.bincount(index, weights=(deviation**2).ravel(), minlength=size).reshape(rows, n_sets)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(count >= 2, squares / (count - 1), np.nan)
    mean = np.where(count > 0, mean, np.nan)
    return mean, var, count


def paule_mandel(y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Paule and Mandel's tau^2 for each row of effects ``y`` with variances ``v`` (NaN = absent).

    The root in tau^2 >= 0 of  sum w (y - theta_w)^2 = k - 1,  w = 1 / (v + tau^2), found by
    bisection (the left side falls monotonically in tau^2); 0 when the left side is already below
    k - 1 at tau^2 = 0; NaN for rows with fewer than two sets.
    """
    y = np.atleast_2d(np.asarray(y, dtype=float))
    v = np.atleast_2d(np.asarray(v, dtype=float))
    present = ~np.isnan(y) & ~np.isnan(v)
    k = present.sum(axis=-1)
    y0 = np.where(present, y, 0.0)
    v0 = np.where(present, v, 1.0)

    def excess(tau2: np.ndarray) -> np.ndarray:
        w = np.where(present, 1.0 / (v0 + tau2[:, None]), 0.0)
        theta = (w * y0).sum(-1) / w.sum(-1)
        return (w * (y0 - theta[:, None]) ** 2).sum(-1) - (k - 1)

    with np.errstate(invalid="ignore", divide="ignore"):
        plain = y0.sum(-1) / np.maximum(k, 1)
        upper = np.where(present, (y0 - plain[:, None]) ** 2, 0.0).sum(-1) / np.maximum(k - 1, 1)
        low = np.zeros(y.shape[0])
        high = upper.copy()
        positive = (k >= 2) & (excess(low) > 0)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (low + high)
            above = excess(mid) > 0
            new_low, new_high = np.where(above, mid, low), np.where(above, high, mid)
            if np.array_equal(new_low[positive], low[positive]) and np.array_equal(new_high[positive], high[positive]):
                break  # a fixed point (the bracket is one float wide): more steps change no root we return
            low, high = new_low, new_high
    tau2 = np.where(positive, 0.5 * (low + high), 0.0)
    return np.where(k >= 2, tau2, np.nan)


def combine_summaries(mean, var, count, scale: str = "identity", alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Combine per-set summaries (arrays of shape (R, S); count 0 = set absent) row by row.

    ``mean`` and ``var`` are on the values' own scale (log values for scale="log", rates for
    "logit"). Returns arrays of shape (R,): estimate, ci_low, ci_high, tau2, prediction_low,
    prediction_high, n_sets, n_problems, se (within-set, weights fixed), se_random
    (1 / sqrt(sum w)), df, and weights (R, S) (relative, summing to 1).
    """
    if scale not in ("identity", "logit", "log"):
        raise StatsError(f"scale must be 'identity', 'logit' or 'log', got {scale!r}")
    mean = np.atleast_2d(np.asarray(mean, dtype=float))
    var = np.atleast_2d(np.asarray(var, dtype=float))
    n = np.atleast_2d(np.asarray(count, dtype=float))
    present = n > 0
    k = present.sum(-1)
    df = np.where(present, n - 1, 0).sum(-1)

    # A set of one problem has no variance of its own, and a set whose problems all agree has a
    # sample variance of 0 that would give it all the weight (ten tied problems would outweigh any
    # number of varying ones): both take the pooled within-set variance.
    several = present & (n >= 2) & ~np.isnan(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.where(several, (n - 1) * var, 0).sum(-1) / np.where(several, n - 1, 0).sum(-1)
    var = np.where(present & ((n < 2) | (var == 0)), pooled[:, None], var)

    with np.errstate(invalid="ignore", divide="ignore"):
        if scale == "logit":
            edge = present & ((mean <= 0) | (mean >= 1))
            # one pseudo-problem of value 1/2 added to a set whose problems are all 0 (or all 1)
            m_edge = (n * mean + 0.5) / (n + 1)
            var_edge = (n * (mean - m_edge) ** 2 + (0.5 - m_edge) ** 2) / n
            p = np.where(edge, m_edge, mean)
            sigma2 = np.where(edge, var_edge, var)
            size = np.where(edge, n + 1, n)
            y = special.logit(p)
            v = sigma2 / size / (p * (1 - p)) ** 2
        else:
            y = mean
            v = var / n
        y = np.where(present, y, np.nan)
        v = np.where(present, v, np.nan)

        # A set whose problems all agree has v = 0; a tiny floor keeps its weight finite.
        centre = np.where(present, y, 0).sum(-1, keepdims=True) / np.maximum(k, 1)[:, None]
        spread = np.where(present, np.maximum(np.nan_to_num(v), (y - centre) ** 2), 0).max(-1)
        floor = np.maximum(1e-12 * spread, 1e-290)
        v = np.where(present, np.maximum(v, floor[:, None]), np.nan)

        unknown = (present & np.isnan(v)).any(-1)  # no variance anywhere (every set of one problem)
        tau2 = paule_mandel(np.where(unknown[:, None], np.nan, y), v)
        tau2_used = np.where(np.isnan(tau2), 0.0, tau2)
        w = np.where(present, 1.0 / (v + tau2_used[:, None]), 0.0)
        w_total = w.sum(-1)
        weights = w / w_total[:, None]
        estimate = np.where(present, weights * np.where(present, y, 0), 0).sum(-1)
        se = np.sqrt(np.where(present, weights**2 * np.where(present, v, 0), 0).sum(-1))
        se_random = 1.0 / np.sqrt(w_total)

        equal = np.where(present, 1.0, 0.0) / np.maximum(k, 1)[:, None]
        plain = np.where(present, equal * np.where(present, y, 0), 0).sum(-1)
        estimate = np.where(unknown, plain, estimate)
        weights = np.where(unknown[:, None], equal, weights)
        se = np.where(unknown, np.nan, se)
        se_random = np.where(unknown, np.nan, se_random)
        tau2 = np.where(unknown, np.nan, tau2)

        t_ci = np.where(df > 0, special.stdtrit(np.maximum(df, 1), 1 - alpha / 2), np.nan)
        ci_low = estimate - t_ci * se
        ci_high = estimate + t_ci * se
        t_pi = np.where(k >= 3, special.stdtrit(np.maximum(k - 2, 1), 1 - alpha / 2), np.nan)
        half = t_pi * np.sqrt(tau2 + se_random**2)
        prediction_low = estimate - half
        prediction_high = estimate + half

    empty = k == 0
    out = {
        "estimate": estimate,
        "ci_low": ci_low,
        "ci_high": ci_high,
        "prediction_low": prediction_low,
        "prediction_high": prediction_high,
    }
    out = {key: np.where(empty, np.nan, value) for key, value in out.items()}
    if scale == "logit":
        out = {key: special.expit(value) for key, value in out.items()}
        raw = np.where(present, mean, np.nan)
        with np.errstate(invalid="ignore"):
            all_zero = ~empty & np.all(~present | (raw <= 0), -1)
            all_one = ~empty & np.all(~present | (raw >= 1), -1)
        # Every problem a miss (or a hit): report what was observed; the other limit stays corrected.
        for key in ("estimate", "ci_low", "prediction_low"):
            out[key] = np.where(all_zero, 0.0, out[key])
        for key in ("estimate", "ci_high", "prediction_high"):
            out[key] = np.where(all_one, 1.0, out[key])
    elif scale == "log":
        out = {key: np.exp(value) for key, value in out.items()}
    out.update(
        tau2=np.where(empty, np.nan, tau2),
        n_sets=k,
        n_problems=np.where(present, n, 0).sum(-1).astype(int),
        se=np.where(empty, np.nan, se),
        se_random=np.where(empty, np.nan, se_random),
        df=df.astype(int),
        weights=np.where(present, weights, 0.0),
    )
    return out


def combine_sets(values_by_set: Mapping[str, object], scale: str = "identity", alpha: float = 0.05) -> dict:
    """Combine problem sets' per-problem values into one estimate with its 95 % interval.

    ``values_by_set`` maps a set name to its per-problem values (one value per problem, its draws
    already averaged; NaN means no value and is left out). ``scale``: "identity"; "logit" for rates
    in [0, 1]; "log" for positive ratios (a geometric mean). Returns a dict with estimate, ci_low,
    ci_high, tau2 (on the combining scale), prediction_low/high (NaN below three sets), n_sets,
    n_problems, se, se_random, df, and weights (set name -> relative weight).
    """
    if not isinstance(values_by_set, Mapping) or not values_by_set:
        raise StatsError("values_by_set must be a non-empty mapping of set name -> per-problem values")
    names = list(values_by_set)
    columns = []
    for name in names:
        x = np.asarray(values_by_set[name], dtype=float).ravel()
        x = x[~np.isnan(x)]
        if np.isinf(x).any():
            raise StatsError(f"set {name!r}: infinite values; apply the metric's rule first (srbf.stats.rules)")
        if scale == "logit" and ((x < 0) | (x > 1)).any():
            outside = x[(x < 0) | (x > 1)][:3]
            raise StatsError(f"set {name!r}: rates on the logit scale must lie in [0, 1], got {outside}")
        if scale == "log":
            if (x <= 0).any():
                raise StatsError(f"set {name!r}: the log scale needs positive values, got {x[x <= 0][:3]}")
            x = np.log(x)
        columns.append(x)
    codes = np.concatenate([np.full(len(x), i) for i, x in enumerate(columns)]).astype(np.intp)
    mean, var, count = set_summaries(np.concatenate(columns)[None, :], codes, len(names))
    out = combine_summaries(mean, var, count, scale=scale, alpha=alpha)
    result = {key: value[0].item() for key, value in out.items() if key != "weights"}
    result["weights"] = {name: float(w) for name, w in zip(names, out["weights"][0]) if count[0, names.index(name)] > 0}
    result["scale"] = scale
    return result
