"""Equal time: a method's per-problem values at t seconds, interpolated in log time between budgets.

Each budget of a method has one time coordinate: the median seconds per problem of its usable
predictions (of all its predictions for a method that never returned a usable one). At a time t, each problem's value is interpolated linearly in log t between the two
measured budgets whose times bracket t. Never extrapolated: below the cheapest budget's time the
method is "n/a" (it cannot run within t); above the dearest, its last value is carried forward and
flagged "max_tested" (a lower bound: more compute could only help). A t equal to a measured time
is "measured"; otherwise "interpolated".
"""

from __future__ import annotations

import warnings

import numpy as np

from srbf.stats.errors import StatsError

DECLARED_TIMES = (1.0, 10.0, 100.0, 1000.0)  # the marks at which verdicts and ranks are issued

STATUSES = ("measured", "interpolated", "max_tested", "n/a")


def time_weights(times, t: float) -> tuple[int, int, float, str]:
    """Where ``t`` falls on a ladder of per-budget ``times`` (NaN or <= 0: not timed).

    Returns (lo, hi, fraction, status): the value at t is (1 - fraction) * v[lo] + fraction * v[hi],
    indices into ``times``. For "n/a", lo = hi = -1.
    """
    times = np.asarray(times, dtype=float).ravel()
    if not (np.isfinite(t) and t > 0):
        raise StatsError(f"t must be a positive number of seconds, got {t!r}")
    usable = np.flatnonzero(np.isfinite(times) & (times > 0))
    if usable.size == 0:
        return -1, -1, 0.0, "n/a"
    order = usable[np.argsort(times[usable], kind="stable")]
    ladder = times[order]
    if t < ladder[0]:
        return -1, -1, 0.0, "n/a"
    if t > ladder[-1]:
        return int(order[-1]), int(order[-1]), 0.0, "max_tested"
    exact = np.flatnonzero(ladder == t)
    if exact.size:
        i = int(order[exact[-1]])
        return i, i, 0.0, "measured"
    j = int(np.searchsorted(ladder, t, side="right"))  # ladder[j-1] < t < ladder[j]
    lo, hi = order[j - 1], order[j]
    fraction = (np.log(t) - np.log(ladder[j - 1])) / (np.log(ladder[j]) - np.log(ladder[j - 1]))
    return int(lo), int(hi), float(fraction), "interpolated"


def first_half(present):
    """The first of two halves of each problem's draws (last axis): its 1st, 3rd, ... available
    draw, the split srbf.stats.paired.draw_summary makes for the noise margin."""
    present = np.asarray(present, dtype=bool)
    return present & (np.cumsum(present, axis=-1) % 2 == 1)


def half_fraction(times, lo: int, hi: int, t: float) -> float:
    """The interpolation fraction at ``t`` between budgets ``lo`` and ``hi`` on another time axis
    (one half's), clipped to [0, 1]; NaN when that axis does not time both budgets in order."""
    low, high = float(times[lo]), float(times[hi])
    if not (np.isfinite(low) and np.isfinite(high) and 0 < low < high):
        return float("nan")
    return float(np.clip((np.log(t) - np.log(low)) / (np.log(high) - np.log(low)), 0.0, 1.0))


def interpolate_at_time(times, values, t: float) -> tuple[np.ndarray, str]:
    """Per-problem ``values`` (..., B; one column per budget) at ``t`` seconds, and the status.

    ``times`` holds each budget's time coordinate. A problem whose value is missing (NaN) at a
    bracketing budget with positive weight is missing at t. "n/a" gives all-NaN values.
    """
    v = np.asarray(values, dtype=float)
    times = np.asarray(times, dtype=float).ravel()
    if v.shape[-1] != times.size:
        raise StatsError(f"values need one column per budget: {v.shape[-1]} columns for {times.size} times")
    lo, hi, fraction, status = time_weights(times, t)
    if status == "n/a":
        return np.full(v.shape[:-1], np.nan), status
    return blend(v[..., lo], v[..., hi], fraction), status


def blend(low, high, fraction):
    """(1 - f) * low + f * high, exact (and NaN-free on the unused side) at f = 0 and f = 1."""
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    f = np.asarray(fraction, dtype=float)
    with np.errstate(invalid="ignore"):
        mixed = (1 - f) * low + f * high
    return np.where(f == 0, low, np.where(f == 1, high, mixed))


def budget_times(seconds, success=None, axis=None):
    """The time coordinate of a budget: the median seconds of its usable predictions (NaN left out)."""
    s = np.asarray(seconds, dtype=float)
    if success is not None:
        s = np.where(np.asarray(success, dtype=float) == 1, s, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN: not timed
        return np.nanmedian(s, axis=axis)


def ladder_times(seconds, success=None):
    """Each method's budget times, (M, B), from seconds and success of shape (M, B, problems, draws).

    A method without a single usable prediction is timed by all its predictions (the seconds it
    spent producing nothing), so it still stands at equal time with its rates 0 instead of
    vanishing from every mark as if it had never run. A method with some usable predictions keeps
    ``budget_times``: its budgets without one stay untimed.
    """
    times = budget_times(seconds, success, axis=(2, 3))
    never = np.isnan(times).all(axis=1)
    if success is not None and never.any():
        times[never] = budget_times(np.asarray(seconds, dtype=float)[never], axis=(2, 3))
    return times
