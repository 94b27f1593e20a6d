"""Weighted medians: the median that weighs each problem set as the average does.

A problem in set s gets weight W_s / m_s, W_s the set's relative weight in the average and m_s the
number of the set's problems that have a value, so every set carries the share of the median it
carries of the mean, whatever its size.
"""

from __future__ import annotations

import numpy as np

from srbf.stats.errors import StatsError


def weighted_median(values, weights=None) -> float:
    """The weighted median of ``values`` (NaN left out; +-inf kept, so +inf can be the median).

    The value at which the cumulative weight of the sorted values reaches half the total; when it
    lands exactly on one half between two values, their midpoint (so equal weights give the usual
    median). Weights must be non-negative; NaN when nothing with positive weight is left.
    """
    x = np.asarray(values, dtype=float).ravel()
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != x.shape:
        raise StatsError(f"weights must match values: {w.shape} vs {x.shape}")
    if (w < 0).any() or np.isnan(w).any():
        raise StatsError("weights must be non-negative numbers")
    keep = ~np.isnan(x) & (w > 0)
    x, w = x[keep], w[keep]
    if x.size == 0:
        return float("nan")
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    cumulative = np.cumsum(w)
    half = 0.5 * cumulative[-1]
    i = int(np.searchsorted(cumulative, half * (1 - 1e-12), side="left"))
    if abs(cumulative[i] - half) <= 1e-12 * cumulative[-1] and i + 1 < x.size:
        a, b = x[i], x[i + 1]
        return float(a if a == b else 0.5 * a + 0.5 * b)
    return float(x[i])


def set_weighted_median(values, set_codes, set_weights) -> float:
    """The median of per-problem ``values`` with each set weighted by ``set_weights[code]``.

    A set with values but no weight (NaN) gets the average weight of the weighted sets.
    """
    x = np.asarray(values, dtype=float).ravel()
    codes = np.asarray(set_codes, dtype=np.intp).ravel()
    ws = np.array(set_weights, dtype=float, copy=True)
    has = ~np.isnan(x)
    counts = np.bincount(codes[has], minlength=ws.size)
    missing = (counts > 0) & ~(ws > 0)
    known = (counts > 0) & (ws > 0)
    if missing.any():
        ws[missing] = ws[known].mean() if known.any() else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        per_problem = np.where(has, ws[codes] / counts[codes], 0.0)
    return weighted_median(np.where(has, x, np.nan), np.nan_to_num(per_problem))


def weighted_median_rows(values, weights) -> np.ndarray:
    """:func:`weighted_median` of every row of ``values`` (R, P) with ``weights`` (R, P), at once."""
    x = np.atleast_2d(np.asarray(values, dtype=float))
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    w = np.where(np.isnan(x) | np.isnan(w), 0.0, np.maximum(w, 0.0))
    order = np.argsort(np.where(np.isnan(x), np.inf, x), axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    ws = np.take_along_axis(w, order, axis=1)
    cumulative = np.cumsum(ws, axis=1)
    total = cumulative[:, -1:]
    half = 0.5 * total
    i = np.argmax(cumulative >= half * (1 - 1e-12), axis=1)
    rows = np.arange(x.shape[0])
    at = xs[rows, i]
    # the next value with positive weight, for a cumulative weight landing exactly on one half
    later = (np.arange(x.shape[1])[None, :] > i[:, None]) & (ws > 0)
    j = np.where(later.any(axis=1), np.argmax(later, axis=1), i)
    on_half = np.abs(cumulative[rows, i] - half[:, 0]) <= 1e-12 * total[:, 0]
    nxt = xs[rows, j]
    with np.errstate(invalid="ignore"):
        mid = np.where(at == nxt, at, 0.5 * at + 0.5 * nxt)
    out = np.where(on_half & (j != i), mid, at)
    return np.where(total[:, 0] > 0, out, np.nan)


def set_weighted_median_rows(values, set_codes, set_weights) -> np.ndarray:
    """:func:`set_weighted_median` of every row: values (R, P), set_weights (R, S)."""
    x = np.atleast_2d(np.asarray(values, dtype=float))
    codes = np.asarray(set_codes, dtype=np.intp)
    ws = np.array(np.atleast_2d(set_weights), dtype=float, copy=True)
    rows, n_sets = ws.shape
    has = ~np.isnan(x)
    index = (np.arange(rows)[:, None] * n_sets + codes[None, :]).ravel()
    counts = np.bincount(index, weights=has.ravel(), minlength=rows * n_sets).reshape(rows, n_sets)
    known = (counts > 0) & (ws > 0)
    missing = (counts > 0) & ~(ws > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fill = np.where(known.any(1), np.where(known, ws, 0).sum(1) / known.sum(1), 1.0)
        ws = np.where(missing, fill[:, None], np.nan_to_num(ws))
        per_problem = np.where(has, ws[:, codes] / counts[:, codes], 0.0)
    return weighted_median_rows(x, np.nan_to_num(per_problem))
