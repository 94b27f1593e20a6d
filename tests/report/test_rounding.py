"""Rounding to the precision an interval justifies, on hand cases."""

import math

import pytest

from srbf.report.rounding import (
    format_fixed,
    format_interval,
    format_p,
    format_pm,
    format_significant,
    interval_decimals,
    round_value,
)


@pytest.mark.parametrize("value,half,expected", [
    (0.53412, 0.0213, "0.53 ± 0.02"),      # first significant digit of the half-width
    (0.53412, 0.0133, "0.534 ± 0.013"),    # a leading 1 keeps one digit more
    (123.4, 21.0, "120 ± 20"),             # tens
    (123456.0, 1000.0, "123500 ± 1000"),   # a leading 1 at a power of ten
    (0.5, 0.1, "0.50 ± 0.10"),
    (-8.123, 0.64, "-8.1 ± 0.6"),
    (0.0042, 0.0096, "0.004 ± 0.010"),     # 0.0096 rounds up to the next decade
    (1.0, 0.0, "1.00"),                    # no spread: three significant digits
    (0.000123456, math.nan, "0.000123"),
])
def test_format_pm_hand_cases(value, half, expected):
    assert format_pm(value, half) == expected


def test_interval_decimals():
    assert interval_decimals(0.0213) == 2
    assert interval_decimals(0.0133) == 3
    assert interval_decimals(0.1) == 2
    assert interval_decimals(0.9) == 1
    assert interval_decimals(21) == -1
    assert interval_decimals(1000) == -2
    assert interval_decimals(0, 5.0) == 2
    assert interval_decimals(math.nan, 0.0) == 0


def test_interval_uses_the_half_width_of_an_asymmetric_interval():
    # half-width (0.5551 - 0.513) / 2 = 0.021: two decimals for value and limits alike
    assert format_interval(0.53412, 0.513, 0.5551) == "0.53 [0.51, 0.56]"
    # half-width 0.0995 rounds to 0.10: a leading 1, two decimals
    assert format_interval(0.02, 0.001, 0.2) == "0.02 [0.00, 0.20]"


def test_special_values():
    assert format_fixed(math.nan, 2) == "—"
    assert format_fixed(math.inf, 2) == "inf"
    assert format_fixed(-math.inf, 2) == "-inf"
    assert format_fixed(-0.001, 2) == "0.00"  # no negative zero
    assert round_value(-0.001, 2) == 0.0 and math.copysign(1, round_value(-0.001, 2)) == 1
    assert format_pm(math.nan, 0.1) == "—"
    # an exact result with floating-point residue in its interval: no interval, no spurious digits
    assert format_interval(0.0, -1e-17, 1e-17) == "0"
    assert format_interval(1e-18, 0.0, 2e-18) == "0"
    assert format_interval(0.25, 0.25 - 1e-16, 0.25 + 1e-16) == "0.250"


def test_significant_digits_and_p_values():
    assert format_significant(0.012345) == "0.012"
    assert format_significant(1234.0) == "1200"
    assert format_significant(0.0) == "0"
    assert format_significant(3.3e-9) == "3.3e-09"
    assert format_p(0.0456) == "0.046"
    assert format_p(1e-7) == "< 0.0001"
    assert format_p(math.nan) == "—"
