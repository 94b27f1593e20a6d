"""The two paired tests: exact McNemar for rates, Wilcoxon signed-rank (Pratt) for continuous metrics.

Both take per-problem paired values (or their differences A - B) and answer "is the typical
difference exactly zero?"; they are two-sided.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from srbf.stats.errors import StatsError

_EXACT_MAX = 50  # exact null distribution without ties or zeros up to this many differences
_ENUMERATE_MAX = 13  # with ties or zeros: every sign assignment is enumerated up to this many


def binomial_two_sided(k, n) -> np.ndarray:
    """Two-sided exact p-value of k successes in n trials at p = 1/2 (vectorised): twice the
    smaller tail, capped at 1; 1 when n = 0."""
    from scipy import stats  # on first use: importing scipy.stats costs more than most reports

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    low = stats.binom.cdf(k, n, 0.5)
    high = stats.binom.sf(k - 1, n, 0.5)
    return np.where(n > 0, np.minimum(1.0, 2 * np.minimum(low, high)), 1.0)


def mcnemar_exact(a, b) -> dict:
    """Exact McNemar test of paired per-problem rates ``a`` and ``b`` (aligned arrays).

    Only discordant problems count: A wins where a > b, B wins where b > a; ties are concordant.
    Under no difference the wins split like a fair coin, so the p-value is the two-sided binomial
    test of A's wins among the discordant problems. For 0/1 values this is McNemar's exact test;
    per-problem rates averaged over draws (0, 1/2, 1) are compared by which side is higher.
    Pairs with a NaN are left out. Returns {"p_value", "wins_a", "wins_b", "ties", "n"}.
    """
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise StatsError(f"a and b must have the same length, got {a.size} and {b.size}")
    ok = ~np.isnan(a) & ~np.isnan(b)
    wins_a = int(np.count_nonzero(a[ok] > b[ok]))
    wins_b = int(np.count_nonzero(b[ok] > a[ok]))
    n = int(ok.sum())
    p = float(binomial_two_sided(wins_a, wins_a + wins_b))
    return {"p_value": p, "wins_a": wins_a, "wins_b": wins_b, "ties": n - wins_a - wins_b, "n": n}


def average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n of ``x`` (ties share their average rank) and the sizes of the tie groups in
    ascending order of value."""
    n = x.size
    if n == 0:
        return np.zeros(0), np.zeros(0, dtype=int)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.flatnonzero(starts)
    sizes = np.diff(np.append(first, n))
    ranks = np.empty(n)
    ranks[order] = np.repeat(first + (sizes + 1) / 2.0, sizes)
    return ranks, sizes


def _wilcoxon_exact_counts(n: int) -> np.ndarray:
    """Number of subsets of {1..n} with each rank sum 0 .. n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts


def wilcoxon_pratt(d, method: str = "auto") -> dict:
    """Wilcoxon signed-rank test of differences ``d`` with Pratt's treatment of zeros.

    Zeros are kept when ranking |d| (so they push the other ranks up) and then contribute to
    neither rank sum. ``method``: "exact" (no ties, no zeros, n <= 50: the exact null distribution),
    "enumerate" (every sign assignment; n <= 13), "asymptotic" (the normal approximation with
    Pratt's mean and variance and the tie correction, no continuity correction), or "auto" (exact
    when allowed, else enumerate when n <= 13, else asymptotic), as scipy.stats.wilcoxon chooses.
    NaN differences are left out. Returns {"statistic" (min of the rank sums), "p_value", "z",
    "r_plus", "r_minus", "n", "n_zero", "method"}; p = 1 when every difference is zero.
    """
    d = np.asarray(d, dtype=float).ravel()
    d = d[~np.isnan(d)]
    n = d.size
    n_zero = int(np.count_nonzero(d == 0))
    absolute = np.abs(d)
    ranks, tie_counts = average_ranks(absolute)
    r_plus = float(ranks[d > 0].sum())
    r_minus = float(ranks[d < 0].sum())
    out = {"statistic": min(r_plus, r_minus), "r_plus": r_plus, "r_minus": r_minus, "n": n, "n_zero": n_zero}
    has_ties = bool((tie_counts > 1).any())
    if method == "auto":
        if n <= _EXACT_MAX and not has_ties and n_zero == 0:
            method = "exact"
        elif n <= _ENUMERATE_MAX:
            method = "enumerate"
        else:
            method = "asymptotic"
    if method not in ("exact", "enumerate", "asymptotic"):
        raise StatsError(f"method must be 'auto', 'exact', 'enumerate' or 'asymptotic', got {method!r}")
    out["method"] = method
    if n == n_zero:
        return {**out, "p_value": 1.0, "z": 0.0}

    mean = (n * (n + 1) - n_zero * (n_zero + 1)) / 4
    nonzero_ties = tie_counts[1:] if n_zero else tie_counts  # the zeros, if any, are the first group
    variance = (n * (n + 1) * (2 * n + 1) - n_zero * (n_zero + 1) * (2 * n_zero + 1)
                - 0.5 * float(np.sum(nonzero_ties**3 - nonzero_ties))) / 24
    z = (r_plus - mean) / np.sqrt(variance) if variance > 0 else 0.0
    if method == "exact":
        if has_ties or n_zero or n > _EXACT_MAX:
            raise StatsError("the exact method needs at most 50 differences, no ties and no zeros")
        counts = _wilcoxon_exact_counts(n)
        pmf = counts / counts.sum()
        k = int(round(r_plus))
        p = 2 * min(pmf[k:].sum(), pmf[: k + 1].sum())
    elif method == "enumerate":
        if n > _ENUMERATE_MAX:
            raise StatsError(f"enumeration is limited to {_ENUMERATE_MAX} differences, got {n}")
        signs = np.array(list(product((1.0, 0.0), repeat=n)))
        sign = np.sign(d)
        null = (signs * np.abs(sign) * ranks).sum(axis=1)  # zeros never count, whatever the sign
        tolerance = 1e-12 * max(1.0, abs(r_plus))
        p = 2 * min(np.mean(null <= r_plus + tolerance), np.mean(null >= r_plus - tolerance))
    else:
        from scipy import stats

        p = 2 * stats.norm.sf(abs(z))
    return {**out, "p_value": float(min(1.0, p)), "z": float(z)}
