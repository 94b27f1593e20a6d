"""Fit to the data: the fraction of variance unexplained (FVU) and what is derived from it.

FVU = sum((y - yhat)^2) / sum((y - mean(y))^2). Computed naively it fails in both directions:
squares of residuals above ~1e154 overflow (inf / inf = NaN, or a finite numerator over an
infinite denominator = 0, a fake perfect fit), and squares below ~1e-162 underflow (0 / 0). Here
every vector is first scaled by a power of two (exact) so that its largest entry lies in [0.5, 1),
its squares are summed in that range, and the two sums are divided with their scales added back
by ``ldexp``. The result is exact up to the rounding of the sums, is +inf when it truly exceeds
the float range, and is never NaN.
"""

from __future__ import annotations

import math

import numpy as np

EPS32 = 2.0**-23  # Numeric Recovery threshold: the precision of a 32-bit float
EPS64 = 2.0**-52  # the floor of log10 FVU: the precision of a 64-bit float
LOG10_FLOOR = math.log10(EPS64)  # about -15.65
ACCURACY_SOLUTION_R2 = 0.999  # SRBench's accuracy solution: R^2 on the test points above this


# Reductions below are the ufuncs' own (``np.add.reduce``, ``np.maximum.reduce``...) or the arrays'
# methods, not ``np.all``/``np.max``/``np.mean``: the same values without the functions' dispatch
# (nor, for the ufuncs', the methods' Python wrappers), which cost more than the sums themselves on
# a few hundred points (a judge prepares two targets per problem, one problem per prediction).


def mean_of(values: np.ndarray) -> float:
    """``float(np.mean(values))`` of a 1-d float64 array: the same pairwise sum, divided the same way."""
    return float(np.add.reduce(values)) / values.size


def _peak(values: np.ndarray) -> float:
    """max|values|: NaN when one is NaN, inf when one is infinite (so it also says whether all are finite)."""
    return float(np.maximum.reduce(np.abs(values)))


def _exponent_of(peak: float) -> int | None:
    """The binary exponent e with ``peak`` in [2**(e-1), 2**e), or None when it is zero."""
    return None if peak == 0.0 else math.frexp(peak)[1]


def _exponent(values: np.ndarray) -> int | None:
    """The binary exponent e with max|values| in [2**(e-1), 2**e), or None when all are zero."""
    return _exponent_of(_peak(values))


def _ldexp(values: np.ndarray, exponent: int) -> np.ndarray:
    """``np.ldexp(values, exponent)``, as a product by the power of two when that is a double: both
    are the exact result correctly rounded, and NumPy's ldexp calls the C library's per element
    (four times the product's time on 512 points)."""
    if -1074 <= exponent <= 1023:
        return values * math.ldexp(1.0, exponent)
    return np.ldexp(values, exponent)


def _scaled_sum_of_squares(values: np.ndarray) -> tuple[float, int]:
    """(t, e) with sum(values**2) == t * 2**(2e) and t in [0.25, n]; (0.0, 0) for all zeros."""
    e = _exponent(values)
    if e is None:
        return 0.0, 0
    scaled = _ldexp(values, -e)
    return float(np.dot(scaled, scaled)), e


_SAFE_LOW = 2.0**-900  # a plain sum of squares in this range lost nothing to under- or overflow
_SAFE_HIGH = 2.0**900


class Target:
    """The targets ``y`` of one set of points, prepared for many FVU computations.

    ``Target(y).fvu(y_pred)`` equals ``fvu(y, y_pred)``; the variance of ``y`` is computed once,
    and a plain sum of squared residuals is used whenever it is safely inside the float range
    (the scaled computation otherwise).
    """

    __slots__ = ("y", "constant", "t_var", "e_var", "ss_var", "peak_exponent")

    def __init__(self, y: np.ndarray):
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.size == 0:
            raise ValueError("FVU of an empty set of points is undefined")
        low, high = float(np.minimum.reduce(y)), float(np.maximum.reduce(y))  # NaN when one is NaN
        peak = max(-low, high)  # max|y|, from the two reductions that also say whether y is constant
        if not math.isfinite(peak):  # the peak of finite values is finite; a NaN or inf is its peak
            raise ValueError("the targets y contain non-finite values")
        self.y = y
        self.constant = low == high
        self.peak_exponent = _exponent_of(peak)
        self.t_var, self.e_var, self.ss_var = 0.0, 0, None
        if not self.constant:
            ys = _ldexp(y, -self.peak_exponent)
            mean = mean_of(ys)
            mean += mean_of(ys - mean)  # a second pass removes the rounding of the first
            t_var, e_var = _scaled_sum_of_squares(ys - mean)
            if t_var == 0.0:  # y varies by less than float64 resolves: treat as constant
                self.constant = True
            else:
                self.t_var, self.e_var = t_var, e_var + self.peak_exponent
                if -450 < self.e_var < 450:
                    self.ss_var = math.ldexp(t_var, 2 * self.e_var)

    def fvu(self, y_pred: np.ndarray) -> float:
        """The FVU of ``y_pred`` (see :func:`fvu`)."""
        y_pred = np.asarray(y_pred, dtype=np.float64).ravel()
        if y_pred.shape != self.y.shape:
            raise ValueError(f"y has {self.y.size} values but y_pred has {y_pred.size}")
        if self.constant:
            if not np.isfinite(y_pred).all():
                return math.inf
            return 0.0 if np.array_equal(self.y, y_pred) else math.inf
        if self.ss_var is not None:
            with np.errstate(all="ignore"):
                residual = self.y - y_pred
                ss = float(np.dot(residual, residual))
            if _SAFE_LOW < ss < _SAFE_HIGH:  # finite and neither overflowed nor underflowed
                return ss / self.ss_var
        return self._scaled_fvu(y_pred)

    def _scaled_fvu(self, y_pred: np.ndarray) -> float:
        if not np.isfinite(y_pred).all():
            return math.inf
        # One common power-of-two scale for y and y_pred, so y - y_pred cannot overflow.
        e_pred = _exponent(y_pred)
        e_common = max(e for e in (self.peak_exponent, e_pred) if e is not None) if (
            self.peak_exponent is not None or e_pred is not None
        ) else None
        if e_common is None:  # both all zeros
            return 0.0
        residual = _ldexp(self.y, -e_common) - _ldexp(y_pred, -e_common)
        t_res, e_res = _scaled_sum_of_squares(residual)
        if t_res == 0.0:
            return 0.0
        e_res += e_common
        try:
            return math.ldexp(t_res / self.t_var, 2 * (e_res - self.e_var))  # underflow gives 0.0
        except OverflowError:
            return math.inf


def fvu(y: np.ndarray, y_pred: np.ndarray) -> float:
    """The fraction of variance unexplained of ``y_pred`` for the targets ``y``.

    0 is a perfect fit, 1 is as good as predicting the mean of ``y``. +inf when ``y_pred`` has a
    non-finite value, when the sum of squares exceeds the float range relative to the variance,
    or when ``y`` is constant and ``y_pred`` differs from it anywhere (0 when it matches exactly).
    ``y`` must be finite and non-empty (ValueError otherwise); the result is never NaN.
    """
    return Target(y).fvu(y_pred)


def r2(y: np.ndarray, y_pred: np.ndarray) -> float:
    """1 - FVU; -inf when the FVU is +inf."""
    return 1.0 - fvu(y, y_pred)


def log10_fvu(value: float) -> float:
    """log10 of an FVU, floored at log10(2**-52) (below it the value is rounding noise)."""
    if value == math.inf:
        return math.inf
    if value <= EPS64:
        return LOG10_FLOOR
    return math.log10(value)


def numeric_recovery(value: float) -> bool:
    """True when an FVU is at most 2**-23 (Numeric Recovery)."""
    return value <= EPS32
