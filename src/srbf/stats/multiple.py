"""Multiple-comparison corrections: Holm (strict, for the confirmatory family) and
Benjamini-Hochberg (screening, for everything else). Adjusted p-values come back in input order;
NaN p-values stay NaN and do not count towards the family size.
"""

from __future__ import annotations

import numpy as np

from srbf.stats.errors import StatsError


def _prepare(p_values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(p_values, dtype=float).ravel()
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise StatsError("p-values must lie in [0, 1]")
    return p, ok, p[ok]


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values: sorted ascending, p_(i) * (m - i + 1), made
    non-decreasing by a running maximum, capped at 1 (i = 1 .. m)."""
    p, ok, q = _prepare(p_values)
    out = np.full(p.shape, np.nan)
    m = q.size
    if m:
        order = np.argsort(q, kind="stable")
        scaled = q[order] * (m - np.arange(m))
        adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
        result = np.empty(m)
        result[order] = adjusted
        out[ok] = result
    return out


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate): sorted ascending,
    p_(i) * m / i, made non-decreasing from the top by a running minimum, capped at 1."""
    p, ok, q = _prepare(p_values)
    out = np.full(p.shape, np.nan)
    m = q.size
    if m:
        order = np.argsort(q, kind="stable")
        scaled = q[order] * m / np.arange(1, m + 1)
        adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
        result = np.empty(m)
        result[order] = adjusted
        out[ok] = result
    return out
