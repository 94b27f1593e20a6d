"""Numbers rounded to the precision their uncertainty justifies.

The rule (docs/report.md, "Rounding"): a value with a 95 % interval is written to the decimal place
of the first significant digit of the interval's half-width, one place further when that digit is
a 1 (rounding 0.014 to 0.01 would misstate the uncertainty by 40 %, rounding 0.04 to 0.04 by none).
The value, its limits and the half-width are all written to that place:

    0.53412 ± 0.0213  ->  0.53 ± 0.02
    0.53412 ± 0.0133  ->  0.534 ± 0.013
    123.4   ± 21      ->  120 ± 20

A value without an interval (no spread, or no interval computed) keeps ``SIGNIFICANT`` significant
digits. Numbers that never had an interval (p-values, seconds) are written with two significant
digits by :func:`format_significant`.
"""

from __future__ import annotations

import math

SIGNIFICANT = 3  # significant digits of a value that has no usable interval
MAX_DECIMALS = 12
TINY = 1e-12  # relative: below it a half-width (or a value) is floating-point residue


def _finite(x) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def interval_decimals(half_width, value=math.nan) -> int:
    """Decimal places justified by an interval's ``half_width`` (negative: tens, hundreds, ...).

    The place of the half-width's first significant digit, one further when that digit is 1.
    Without a positive finite half-width, ``value`` keeps ``SIGNIFICANT`` significant digits. A
    half-width or value below ``TINY`` times the value's magnitude (or 1) is rounding residue of an
    exact result: it counts as zero.
    """
    scale = max(1.0, abs(float(value))) if _finite(value) else 1.0
    if _finite(half_width) and float(half_width) > TINY * scale:
        h = float(half_width)
        exponent = math.floor(math.log10(h))
        leading = int(h / 10.0**exponent + 1e-9)  # guards 0.1 / 10**-1 = 0.9999999999999999
        if leading >= 10:  # log10 rounded down at an exact power of ten
            exponent, leading = exponent + 1, 1
        decimals = -exponent + (1 if leading == 1 else 0)
    elif _finite(value) and abs(float(value)) > TINY:
        decimals = SIGNIFICANT - 1 - math.floor(math.log10(abs(float(value))))
    else:
        decimals = 0
    return min(decimals, MAX_DECIMALS)


def round_value(value, decimals: int) -> float:
    """``value`` rounded to ``decimals`` places (NaN and infinities unchanged, -0 becomes 0)."""
    if not _finite(value):
        return float(value) if value is not None else math.nan
    rounded = round(float(value), decimals)
    return 0.0 if rounded == 0 else rounded


def format_fixed(value, decimals: int) -> str:
    """``value`` written with ``decimals`` places; NaN as an em dash, infinities as ±inf."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    x = float(value)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    x = round_value(x, decimals)
    if decimals <= 0:
        return str(int(x))
    return f"{x:.{decimals}f}"


def format_pm(value, half_width) -> str:
    """``value ± half_width`` rounded by the rule above (``0.53 ± 0.02``)."""
    d = interval_decimals(half_width, value)
    if not (_finite(value) and _finite(half_width) and float(half_width) > TINY * max(1.0, abs(float(value)))):
        return format_fixed(value, d)
    return f"{format_fixed(value, d)} ± {format_fixed(half_width, d)}"


def format_interval(value, low, high) -> str:
    """``value [low, high]`` rounded to the place the half-width (high - low) / 2 justifies."""
    return format_with(value, low, high)[0]


def format_with(value, low, high) -> tuple[str, int]:
    """(``value [low, high]``, the decimal places used): the places also serve a row's other numbers."""
    half = (float(high) - float(low)) / 2 if _finite(low) and _finite(high) else math.nan
    d = interval_decimals(half, value)
    if not (_finite(value) and _finite(half) and half > TINY * max(1.0, abs(float(value)))):
        return format_fixed(value, d), d
    return f"{format_fixed(value, d)} [{format_fixed(low, d)}, {format_fixed(high, d)}]", d


def format_significant(value, digits: int = 2) -> str:
    """``value`` with ``digits`` significant digits (p-values, seconds): 0.0123 -> 0.012, 1234 -> 1200."""
    if value is None or not _finite(value):
        return format_fixed(value, 0)
    x = float(value)
    if x == 0:
        return "0"
    decimals = digits - 1 - math.floor(math.log10(abs(x)))
    if decimals > 6:  # very small: scientific notation keeps it readable
        return f"{x:.{digits - 1}e}"
    return format_fixed(x, decimals)


def format_p(value) -> str:
    """A p-value: two significant digits, below 0.0001 written as ``< 0.0001``."""
    if _finite(value) and 0 <= float(value) < 1e-4:
        return "< 0.0001"
    return format_significant(value, 2)
