"""Ranks: per-problem placings, the Friedman test, Nemenyi's critical difference and its groups.

Within each problem the methods are ranked 1 (best) .. k like race placings, ties sharing the
average placing, so hard and easy problems hand out the same placings and a method's mean rank is
a difficulty-adjusted standing. The Friedman test (tie-corrected) asks whether the mean ranks
spread more than interchangeable methods would; only then are groups drawn: methods whose mean
ranks lie within one critical difference CD = q_alpha * sqrt(k (k + 1) / (6 N)) of each other,
q_alpha the studentized range quantile for k groups and infinite df, divided by sqrt(2).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from srbf.stats.errors import StatsError


def rank_rows(scores, higher_is_better: bool = True) -> np.ndarray:
    """Placings within each row of ``scores`` (problems x methods): 1 is the best, ties averaged.

    NaN is a failure: it ranks after every value, failures sharing their average placing.
    """
    from scipy import stats  # on first use: importing scipy.stats costs more than most reports

    x = np.asarray(scores, dtype=float)
    if x.ndim != 2:
        raise StatsError(f"scores must be a 2-D array (problems x methods), got shape {x.shape}")
    key = -x if higher_is_better else x
    failed = np.isnan(key)
    if not failed.any():
        return stats.rankdata(key, axis=1)
    ranks = stats.rankdata(key, axis=1, nan_policy="omit")  # NaN where a method failed
    n_failed = failed.sum(axis=1, keepdims=True)
    return np.where(failed, x.shape[1] - (n_failed - 1) / 2.0, ranks)


def friedman(ranks) -> dict:
    """Tie-corrected Friedman chi-square of a problems x methods matrix of placings.

    chi2 = 12 N / (k (k + 1)) * sum_j (Rbar_j - (k + 1) / 2)^2, divided by
    1 - sum over tie groups (t^3 - t) / (N k (k^2 - 1)); p from chi-square on k - 1 df.
    """
    r = np.asarray(ranks, dtype=float)
    n, k = r.shape
    if n < 1 or k < 2:
        return {"statistic": np.nan, "p_value": np.nan, "df": k - 1}
    mean_ranks = r.mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * np.sum((mean_ranks - (k + 1) / 2) ** 2)
    ordered = np.sort(r, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    counts = np.bincount(np.cumsum(starts.ravel()) - 1).astype(float)  # sizes of the tie groups
    ties = float(np.sum(counts**3 - counts))
    correction = 1 - ties / (n * k * (k * k - 1))
    if correction <= 0:  # every problem a complete tie: no evidence of any difference
        return {"statistic": 0.0, "p_value": 1.0, "df": k - 1}
    from scipy import stats

    statistic = chi2 / correction
    return {"statistic": float(statistic), "p_value": float(stats.chi2.sf(statistic, k - 1)), "df": k - 1}


@lru_cache(maxsize=256)
def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test: the studentized range quantile (k groups, infinite df) / sqrt 2."""
    if k < 2:
        raise StatsError(f"the Nemenyi test needs at least two methods, got {k}")
    from scipy import stats

    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks for k methods on n problems."""
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def cd_groups(mean_ranks, cd: float) -> list[list[int]]:
    """Maximal runs of methods (indices, best first) whose mean ranks span less than ``cd``.

    Sorted by mean rank, each method starts a run of all following methods within ``cd`` of it;
    runs contained in another run, and single methods, are dropped (as in a CD diagram's bars).
    """
    r = np.asarray(mean_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    groups: list[list[int]] = []
    last_end = -1
    for start in range(order.size):
        end = start
        while end + 1 < order.size and r[order[end + 1]] - r[order[start]] < cd:
            end += 1
        if end > start and end > last_end:
            groups.append([int(i) for i in order[start : end + 1]])
            last_end = end
    return groups


def friedman_nemenyi(matrix, alpha: float = 0.05, higher_is_better: bool = True) -> dict:
    """Friedman test and Nemenyi critical difference for a problems x methods score matrix.

    Parameters
    ----------
    matrix : array_like of shape (n_problems, n_methods)
        One score per problem and method; NaN is a failure and ranks last on its problem.
    alpha : float, default 0.05
        The level of the test and of the critical difference.
    higher_is_better : bool, default True
        False for errors.

    Returns
    -------
    dict
        ``statistic`` and ``p_value`` (Friedman, with the tie correction), ``mean_ranks`` (1 is
        best), ``cd`` (Nemenyi's critical difference), ``groups`` (lists of column indices, best
        first, whose mean ranks span less than ``cd``; drawn only when the test is significant,
        else empty), ``significant``, ``n_problems`` and ``k``.

    Raises
    ------
    StatsError
        A matrix that is not 2-D, or with fewer than one problem or two methods.

    Notes
    -----
    Groups are drawn only after a significant Friedman test, the post-hoc order of Demsar (2006):
    a diagram of methods the test cannot tell apart would suggest an order that is noise. Sharing
    a group means no rank difference was detectable at this sample size, not equality.

    Examples
    --------
    >>> scores = [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2], [0.7, 0.4, 0.3], [0.95, 0.3, 0.2], [0.9, 0.6, 0.5]]
    >>> result = friedman_nemenyi(scores)
    >>> result["mean_ranks"].tolist(), round(result["p_value"], 4), result["groups"]
    ([1.0, 2.0, 3.0], 0.0067, [[0, 1], [1, 2]])
    """
    x = np.asarray(matrix, dtype=float)
    if x.ndim != 2:
        raise StatsError(f"matrix must be 2-D (problems x methods), got shape {x.shape}")
    n, k = x.shape
    if k < 2 or n < 1:
        raise StatsError(f"need at least one problem and two methods, got {n} x {k}")
    ranks = rank_rows(x, higher_is_better=higher_is_better)
    test = friedman(ranks)
    mean_ranks = ranks.mean(axis=0)
    cd = critical_difference(k, n, alpha)
    significant = bool(test["p_value"] < alpha)
    return {
        "statistic": test["statistic"],
        "p_value": test["p_value"],
        "mean_ranks": mean_ranks,
        "cd": cd,
        "groups": cd_groups(mean_ranks, cd) if significant else [],
        "significant": significant,
        "n_problems": n,
        "k": k,
    }
