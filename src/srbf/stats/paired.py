"""Paired comparisons: per-problem differences A - B, a measured noise margin, and a verdict.

The difference of two methods is taken problem by problem (joined on the problem key), so shared
difficulty cancels. The per-problem differences are combined across sets exactly like any value
(srbf.stats.meta, identity scale), giving Delta with its 95 % interval. The verdict compares that
interval with the measurement-noise margin m of the pair:

- better / worse: the interval clears the margin (lies entirely above +m or below -m);
- equivalent: the interval lies entirely inside [-m, +m];
- undecided: neither.

Identical outputs (every paired difference exactly 0) are "equivalent" with the note "identical
outputs", whatever the margin: Delta is exactly 0 with a zero-width interval, and a margin of 0
(neither side's value moves between draws) is a measured 0, not a missing one.

The margin is measured, never chosen: each method's draws of a problem are split into two halves
(alternate draws; with two draws, one draw each), and the difference between the halves is what the
problem's value moves by between two half-size runs of the same method. Flipping the signs of those
differences at random (the halves are exchangeable) and averaging them with the weights of Delta
gives the null distribution of Delta between two equally good methods measured with half the draws;
the margin m is the 95th percentile of its absolute value (1,000 seeded sign draws), A's and B's
halves drawn independently. A half-size run is noisier than the full averages Delta compares, so m
is about twice the draw-noise part of Delta's interval: two methods that differ only by draw noise
come out "equivalent" about 95 % of the time, and "better" needs a difference beyond what rerunning
either method could produce. At a time mark, each side's time axis measured on either half of its
draws places the mark differently; that shift moves every problem of the side together and enters
the null with one random sign per side (srbf.stats.analysis computes it).

MDE80, the smallest true difference the verdict would catch 80 % of the time, is
m + (t_{0.975} + t_{0.80}) * se, with se and the t degrees of freedom those of Delta's interval.
The p-value (exact McNemar for rates, Wilcoxon signed-rank with Pratt's zeros otherwise) asks a
different question, whether Delta is exactly zero, and is corrected for multiplicity elsewhere
(srbf.stats.multiple).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import special

from srbf.stats.meta import combine_summaries, set_summaries
from srbf.stats.pvalues import mcnemar_exact, wilcoxon_pratt
from srbf.stats.errors import StatsError


def draw_summary(draws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-problem mean over the draws (last axis; NaN = no value), its split-half difference, and
    the number of draws used.

    The available draws of a problem are split alternately into two halves (1st, 3rd, ... and
    2nd, 4th, ...); the split-half difference is mean(half 1) - mean(half 2), NaN when fewer than two
    draws are available.
    """
    x = np.asarray(draws, dtype=float)
    shape = x.shape[:-1]
    count = np.zeros(shape)
    a = np.zeros(shape)
    total = np.zeros(shape)
    first_total = np.zeros(shape)
    for k in range(x.shape[-1]):  # draws one at a time: each slice is a whole block
        xk = x[..., k]
        available = ~np.isnan(xk)
        first = available & (count % 2 == 0)  # alternate available draws: 1st, 3rd, ... in half 1
        value = np.where(available, xk, 0.0)
        total += value
        first_total += np.where(first, value, 0.0)
        a += first
        count += available
    b = count - a
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        noise = first_total / a - (total - first_total) / b
    mean = np.where(count > 0, mean, np.nan)
    noise = np.where((a > 0) & (b > 0), noise, np.nan)
    return mean, noise, count


def verdict(ci_low: float, ci_high: float, margin: float, higher_is_better: bool = True,
            max_tested_a: bool = False, max_tested_b: bool = False, identical: bool = False) -> tuple[str, str]:
    """The verdict on A from Delta's interval and the margin, and a note ('' or why it was downgraded).

    ``identical``: every paired difference is exactly 0, so the two sides are "equivalent" (note
    "identical outputs") whether or not a margin could be measured. A max-tested side's value is a
    lower bound (more compute could only help it): a verdict it could overturn by improving
    (against it, or "equivalent") becomes "undecided" with the note "max-tested limit".
    """
    note = ""
    if identical:
        call, note = "equivalent", "identical outputs"
    elif not (np.isfinite(ci_low) and np.isfinite(ci_high) and np.isfinite(margin)):
        return "undecided", "no interval" if np.isfinite(margin) else "no noise margin"
    elif ci_low > margin:
        call = "better" if higher_is_better else "worse"
    elif ci_high < -margin:
        call = "worse" if higher_is_better else "better"
    elif -margin <= ci_low and ci_high <= margin:
        call = "equivalent"
    else:
        return "undecided", ""
    overturnable = (
        (call == "better" and max_tested_b)
        or (call == "worse" and max_tested_a)
        or (call == "equivalent" and (max_tested_a or max_tested_b))
    )
    return ("undecided", "max-tested limit") if overturnable else (call, note)


def mde80(margin, se, df, alpha: float = 0.05, power: float = 0.80):
    """Minimum detectable effect: the true |Delta| whose interval clears the margin with ``power``."""
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        safe = np.maximum(df, 1)
        crit = np.where(df > 0, special.stdtrit(safe, 1 - alpha / 2) + special.stdtrit(safe, power), np.nan)
    return np.asarray(margin, dtype=float) + crit * np.asarray(se, dtype=float)


def sign_matrix(n_resamples: int, n_problems: int, seed: int) -> np.ndarray:
    """n_resamples x n_problems random signs (+-1), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random((n_resamples, n_problems), dtype=np.float32) < 0.5, np.float32(-1), np.float32(1))


def compare_arrays(va, vb, noise_a, noise_b, set_codes, n_sets: int, *, rate: bool, alpha: float = 0.05,
                   n_resamples: int = 1000, seed: int = 0, signs=None, time_noise=None) -> dict[str, np.ndarray]:
    """Batch of comparisons: rows of per-problem values (R, P) for A and B with their noise.

    NaN marks a problem without a value; only problems where both have one are paired. Returns arrays
    of shape (R,): delta, ci_low, ci_high, se, df, margin, p_value, mde80, n_pairs, n_a_only,
    n_b_only, noise_problems, wins_a, wins_b, ties (the last three for rates; NaN otherwise) and
    identical (every paired difference exactly 0: Delta, its interval and se are then exactly 0).
    ``signs`` (two sign matrices, n_resamples x P) may be passed to reuse them across batches.
    ``time_noise`` (A's and B's, (R, P) each): how far each problem's value at a time mark moves
    when the side's time axis is measured on one half of its draws rather than the other. It shifts
    every problem of a side together, so it enters the null with one random sign per side.
    """
    va = np.atleast_2d(np.asarray(va, dtype=float))
    vb = np.atleast_2d(np.asarray(vb, dtype=float))
    na = np.atleast_2d(np.asarray(noise_a, dtype=float))
    nb = np.atleast_2d(np.asarray(noise_b, dtype=float))
    codes = np.asarray(set_codes, dtype=np.intp)
    has_a, has_b = ~np.isnan(va), ~np.isnan(vb)
    joint = has_a & has_b
    d = np.where(joint, va - vb, np.nan)
    mean, var, count = set_summaries(d, codes, n_sets)
    combined = combine_summaries(mean, var, count, scale="identity", alpha=alpha)
    identical = joint.any(-1) & ~(joint & (d != 0)).any(-1)
    for key in ("estimate", "ci_low", "ci_high", "se"):  # exactly 0, not the variance floor's +-1e-145
        combined[key] = np.where(identical, 0.0, combined[key])

    with np.errstate(invalid="ignore", divide="ignore"):
        omega = np.where(joint, combined["weights"][:, codes] / count[:, codes], 0.0)
    omega = np.nan_to_num(omega)
    if signs is None:
        signs = (sign_matrix(n_resamples, d.shape[1], seed), sign_matrix(n_resamples, d.shape[1], seed + 1))
    # float32 products: the margin is a percentile of 1,000 draws, far coarser than float32 rounding
    null = signs[0] @ (omega * np.nan_to_num(na)).T.astype(np.float32)
    null += signs[1] @ (omega * np.nan_to_num(nb)).T.astype(np.float32)
    if time_noise is not None:
        side = sign_matrix(signs[0].shape[0], 2, seed + 2)  # one sign per side and resample
        for k, moved in enumerate(time_noise):
            shift = (omega * np.nan_to_num(np.atleast_2d(np.asarray(moved, dtype=float)))).sum(-1)
            null += side[:, k : k + 1] * shift.astype(np.float32)
    margin = np.quantile(np.abs(null.astype(np.float64)), 0.95, axis=0)
    noise_problems = (joint & ~np.isnan(na) & ~np.isnan(nb)).sum(-1)
    margin = np.where(noise_problems > 0, margin, np.nan)  # no split halves: no margin, no verdict

    rows = d.shape[0]
    p = np.full(rows, np.nan)
    wins_a = np.full(rows, np.nan)
    wins_b = np.full(rows, np.nan)
    ties = np.full(rows, np.nan)
    for r in range(rows):
        if not joint[r].any():
            continue
        if rate:
            test = mcnemar_exact(va[r, joint[r]], vb[r, joint[r]])
            p[r], wins_a[r], wins_b[r], ties[r] = test["p_value"], test["wins_a"], test["wins_b"], test["ties"]
        else:
            p[r] = wilcoxon_pratt(d[r, joint[r]])["p_value"]
    return {
        "delta": combined["estimate"],
        "ci_low": combined["ci_low"],
        "ci_high": combined["ci_high"],
        "se": combined["se"],
        "df": combined["df"],
        "tau2": combined["tau2"],
        "margin": margin,
        "mde80": mde80(margin, combined["se"], combined["df"], alpha=alpha),
        "p_value": p,
        "n_pairs": joint.sum(-1),
        "n_a_only": (has_a & ~has_b).sum(-1),
        "n_b_only": (has_b & ~has_a).sum(-1),
        "noise_problems": noise_problems,
        "wins_a": wins_a,
        "wins_b": wins_b,
        "ties": ties,
        "identical": identical,
    }


def _draws_by_key(side, label: str) -> dict:
    if hasattr(side, "items"):
        items = side.items()
    else:
        raise TypeError(f"{label} must be a mapping (or pandas Series) of problem key -> draw values")
    out = {}
    for key, value in items:
        out[key] = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    return out


def paired_comparison(a: Mapping, b: Mapping, *, rate: bool = False, higher_is_better: bool = True,
                      alpha: float = 0.05, versions: tuple[Mapping, Mapping] | None = None,
                      max_tested: tuple[bool, bool] = (False, False), n_resamples: int = 1000,
                      seed: int = 0) -> dict:
    """Compare method A with method B on the problems both were run on.

    Parameters
    ----------
    a, b : mapping
        Problem key -> that problem's draw values (a number or a sequence; NaN = no usable value,
        so a failure on a rate must already be 0, see srbf.stats.rules). A key
        ``(set, problem_id)`` puts the problem in that set; any other key puts every problem in
        one set.
    rate : bool, default False
        The values are rates: McNemar's exact test, else Wilcoxon-Pratt.
    higher_is_better : bool, default True
        The metric's direction (False for errors), which the verdict reads.
    alpha : float, default 0.05
        The level of the interval and the test.
    versions : (mapping, mapping), optional
        A's and B's set -> catalog version.
    max_tested : (bool, bool), default (False, False)
        A side's value is a lower bound (measured at its largest budget only): a verdict it could
        overturn by improving is withheld.
    n_resamples : int, default 1000
        Sign vectors drawn for the noise margin.
    seed : int, default 0
        Seeds the noise margin.

    Returns
    -------
    dict
        One record: ``delta`` (A - B) with ``ci_low``/``ci_high``, ``margin`` (the measured
        noise margin), ``verdict`` ("better", "worse", "equivalent", "undecided" or "n/a", for
        A) with ``verdict_note``, ``test`` and ``p_value``, ``wins_a``/``wins_b``/``ties`` (rates),
        and the counts of paired and unpaired problems.

    Raises
    ------
    StatsError
        Results from different versions of one catalog, which are never paired.

    Notes
    -----
    Keys are matched by equality, never by position, so two methods that ran different subsets
    are paired only where both have a value. The margin is measured from each method's own draw
    noise, never chosen, so *better* means a difference beyond what rerunning either method could
    produce (docs/statistics.md, section 7).

    Examples
    --------
    >>> a = {("nguyen", f"p{i}"): [1.0, 1.0] for i in range(12)}
    >>> b = {("nguyen", f"p{i}"): [0.0, 0.0] if i < 10 else [1.0, 1.0] for i in range(12)}
    >>> record = paired_comparison(a, b, rate=True)
    >>> record["verdict"], record["test"], record["wins_a"], record["wins_b"], round(record["p_value"], 4)
    ('better', 'mcnemar_exact', 10.0, 0.0, 0.002)
    >>> paired_comparison(a, b, versions=({"nguyen": 1}, {"nguyen": 2}))
    Traceback (most recent call last):
    srbf.stats.errors.StatsError: refusing to pair results from different catalog versions: nguyen (A 1, B 2)
    """
    if versions is not None:
        va_, vb_ = versions
        clash = sorted(str(s) for s in set(va_) & set(vb_) if va_[s] != vb_[s])
        if clash:
            raise StatsError(
                "refusing to pair results from different catalog versions: "
                + ", ".join(f"{s} (A {va_[s]}, B {vb_[s]})" for s in clash)
            )
    draws_a = _draws_by_key(a, "a")
    draws_b = _draws_by_key(b, "b")
    keys = sorted(set(draws_a) | set(draws_b), key=repr)
    in_both = [k for k in keys if k in draws_a and k in draws_b]
    sets = sorted({k[0] if isinstance(k, tuple) and len(k) == 2 else None for k in keys}, key=repr)
    code_of = {s: i for i, s in enumerate(sets)}
    codes = np.array([code_of[k[0] if isinstance(k, tuple) and len(k) == 2 else None] for k in keys], dtype=np.intp)
    width = max([len(v) for v in draws_a.values()] + [len(v) for v in draws_b.values()] + [1])

    def matrix(draws: dict) -> np.ndarray:
        m = np.full((len(keys), width), np.nan)
        for i, k in enumerate(keys):
            if k in draws:
                m[i, : draws[k].size] = draws[k]
        return m

    mean_a, noise_a, _ = draw_summary(matrix(draws_a))
    mean_b, noise_b, _ = draw_summary(matrix(draws_b))
    out = compare_arrays(mean_a, mean_b, noise_a, noise_b, codes, len(sets), rate=rate, alpha=alpha,
                         n_resamples=n_resamples, seed=seed)
    record = {key: value[0].item() for key, value in out.items()}
    call, note = verdict(record["ci_low"], record["ci_high"], record["margin"], higher_is_better, *max_tested,
                         identical=record["identical"])
    record.update(
        verdict=call,
        verdict_note=note,
        test="mcnemar_exact" if rate else "wilcoxon_pratt",
        n_unpaired=len(keys) - len(in_both),
        max_tested_a=bool(max_tested[0]),
        max_tested_b=bool(max_tested[1]),
    )
    return record
