"""The expression-level bootstrap: the alternative to combining sets (000's "About these numbers").

The per-problem values (draws averaged) are resampled with replacement, 1,000 times; each resample's
mean is computed; the point is the median of those means and the band their 2.5th to 97.5th
percentiles. Problems are pooled across sets, so the largest set dominates: prefer the set
combination (srbf.stats.meta) for several sets, and the bootstrap within one set or when asked.
"""

from __future__ import annotations

import numpy as np

from srbf.stats.errors import StatsError


def bootstrap_median(values, n_resamples: int = 1000, seed: int = 0, level: float = 0.95,
                     statistic: str = "mean") -> dict:
    """Median and percentile band of the bootstrap distribution of the mean of ``values`` (of
    their median, ``statistic="median"``: the accuracy-size figure's intervals).

    NaN values are left out; infinite ones are refused (apply the metric's rule first). The same
    ``seed`` gives the same resamples. Returns {"median", "low", "high", "n", "n_resamples"}.
    """
    x = np.asarray(values, dtype=float).ravel()
    x = x[~np.isnan(x)]
    if np.isinf(x).any():
        raise StatsError("bootstrap_median: infinite values; apply the metric's rule first (srbf.stats.rules)")
    if n_resamples < 1:
        raise StatsError(f"n_resamples must be at least 1, got {n_resamples}")
    if statistic not in ("mean", "median"):
        raise StatsError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    if not 0 < level < 1:
        raise StatsError(f"level must lie in (0, 1), got {level}")
    if x.size == 0:
        return {"median": np.nan, "low": np.nan, "high": np.nan, "n": 0, "n_resamples": n_resamples}
    rng = np.random.default_rng(seed)
    estimates = np.empty(n_resamples)  # the statistic of each resample
    chunk = max(1, min(n_resamples, 2_000_000 // max(x.size, 1)))
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        index = rng.integers(0, x.size, size=(stop - start, x.size))
        resampled = x[index]
        estimates[start:stop] = resampled.mean(axis=1) if statistic == "mean" else np.median(resampled, axis=1)
    tail = 100 * (1 - level) / 2
    low, median, high = np.percentile(estimates, [tail, 50, 100 - tail])
    return {"median": float(median), "low": float(low), "high": float(high), "n": int(x.size),
            "n_resamples": n_resamples}
