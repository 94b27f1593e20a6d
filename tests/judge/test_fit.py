"""FVU, R^2, log10 FVU and Numeric Recovery against hand-computed values and extreme scales."""

import math

import numpy as np
import pytest

from srbf.judge.fit import EPS32, LOG10_FLOOR, Target, fvu, log10_fvu, numeric_recovery, r2

Y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def test_hand_computed_value():
    # residuals -4, -2, 0, 2, 4 -> 40; deviations from the mean 3 -> 10
    assert fvu(Y, Y[::-1]) == 4.0
    assert r2(Y, Y[::-1]) == -3.0
    assert fvu(Y, Y) == 0.0
    assert fvu([0.0, 2.0], [1.0, 1.0]) == 1.0


@pytest.mark.parametrize("scale", [10.0**k for k in range(-30, 31, 5)] + [1e-300, 1e-200, 1e200, 1e300])
def test_predicting_the_mean_gives_one_at_every_scale(scale):
    y = Y * scale
    assert fvu(y, np.full(5, y.mean())) == pytest.approx(1.0, rel=1e-12)
    assert fvu(y, y * (1 + 1e-6)) == pytest.approx(5.5e-12, rel=1e-6)  # sum(y^2) / 10 * 1e-12


def test_numeric_recovery_threshold_exactly():
    y = np.array([-1.0, 1.0])  # sum of squared deviations: 2
    passes = np.array([-1.0 + 2.0**-12, 1.0])  # residual^2 = 2^-24 -> FVU = 2^-25 = 0.25 * 2^-23
    fails = np.array([-1.0 + 2.0**-10, 1.0])  # FVU = 2^-21 = 4 * 2^-23
    assert fvu(y, passes) == 0.25 * EPS32
    assert fvu(y, fails) == 4 * EPS32
    assert numeric_recovery(fvu(y, passes))
    assert not numeric_recovery(fvu(y, fails))
    assert numeric_recovery(EPS32) and not numeric_recovery(math.nextafter(EPS32, 1))


def test_non_finite_predictions_give_infinity():
    for bad in (np.nan, np.inf, -np.inf):
        y_pred = Y.copy()
        y_pred[2] = bad
        assert fvu(Y, y_pred) == math.inf
        assert r2(Y, y_pred) == -math.inf


def test_huge_residuals_never_give_a_perfect_fit():
    assert fvu(Y, Y + 1e167) == math.inf  # (1e167)^2 overflows the range: infinitely bad
    assert fvu(Y * 1e160, Y * 1e160 + 1e167) == pytest.approx(5e13)  # 5 * 1e334 / (10 * 1e320)
    assert fvu(Y, np.full(5, 1e300)) == math.inf
    assert fvu(Y * 1e307, -Y * 1e307) == pytest.approx(22.0)  # y - y_pred would overflow unscaled
    assert fvu(Y * 1e-170, Y * 1e-170 + 1e-171) == pytest.approx(0.005)  # squares would underflow


def test_constant_targets():
    y = np.full(4, 2.5)
    assert fvu(y, y.copy()) == 0.0
    assert fvu(y, y + 1e-12) == math.inf
    assert fvu(y, [2.5, 2.5, 2.5, np.nan]) == math.inf
    assert fvu(np.zeros(3), np.zeros(3)) == 0.0


def test_never_nan_on_random_extremes():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(1, 6))
        y = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)
        y_pred = y + rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)
        value = fvu(y, y_pred)
        assert not math.isnan(value) and value >= 0


def test_bad_targets_are_errors():
    with pytest.raises(ValueError):
        fvu([1.0, np.nan], [1.0, 1.0])
    with pytest.raises(ValueError):
        fvu([], [])
    with pytest.raises(ValueError):
        fvu([1.0, 2.0], [1.0])


def test_prepared_target_matches_the_function():
    target = Target(Y)
    for y_pred in (Y[::-1], Y + 0.1, np.full(5, 3.0), Y + 1e200):
        assert target.fvu(y_pred) == fvu(Y, y_pred)


def test_log10_floor_and_infinity():
    assert log10_fvu(0.0) == LOG10_FLOOR == pytest.approx(-15.6536, abs=1e-4)
    assert log10_fvu(2.0**-60) == LOG10_FLOOR
    assert log10_fvu(0.01) == pytest.approx(-2.0)
    assert log10_fvu(math.inf) == math.inf


def test_targets_must_be_finite_and_not_empty():
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="non-finite"):
            Target(np.array([1.0, bad, 2.0]))
    with pytest.raises(ValueError, match="empty"):
        Target(np.array([]))


def test_scaling_by_a_power_of_two_is_numpys_ldexp_bit_for_bit():
    """``fit._ldexp`` multiplies by the power of two where that is a double: the same bits as
    ``np.ldexp`` over the whole exponent range, subnormal results and signed zeros included."""
    from srbf.judge.fit import _ldexp

    rng = np.random.default_rng(7)
    mantissas = np.concatenate([rng.uniform(-1, 1, 200), [0.0, -0.0, 0.5, -0.999999, 5e-324, -5e-324, 1.5]])
    with np.errstate(all="ignore"):  # overflows to inf are compared too
        for source in (-1074, -1022, -600, -1, 0, 1, 600, 1023):
            values = np.ldexp(mantissas, source + 1)  # values around 2**source, some subnormal
            for exponent in (-1100, -1075, -1074, -1060, -1024, -1023, -300, -1, 0, 1, 300, 1023, 1024, 1100, 2000):
                expected = np.ldexp(values, exponent)
                got = _ldexp(values, exponent)
                assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes(), (source, exponent)
