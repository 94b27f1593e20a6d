"""The readout's numbers against hand-computed values: failed fits untimed, sets combined, completeness."""

import math

import pandas as pd

from srbf.stats.timing_readout import readout_rows


def fits(rows):
    return pd.DataFrame(rows, columns=["method", "budget", "catalog", "problem_id", "ok", "seconds"])


# Two sets alike in size and spread (seconds 1, 3 and 5, 7: variances 2 and 2), so the random-effects
# weights are equal whatever tau^2 is: the mean is (2 + 6) / 2 = 4, and the median of 1, 3, 5, 7
# with equal weights is the midpoint of 3 and 5 = 4. Each set also has one failed fit (100 s, 200 s)
# that must not be timed; both sets' success rates are 2/3, so their combination is 2/3.
TWO_SETS = [
    ("m", 1.0, "a", "a1", True, 1.0), ("m", 1.0, "a", "a2", True, 3.0), ("m", 1.0, "a", "a3", False, 100.0),
    ("m", 1.0, "b", "b1", True, 5.0), ("m", 1.0, "b", "b2", True, 7.0), ("m", 1.0, "b", "b3", False, 200.0),
]


def test_mean_median_and_success_rate_by_hand():
    (row,) = readout_rows(fits(TWO_SETS), {"a": 3, "b": 3}).itertuples()
    assert (row.recorded, row.ok, row.problems, row.n_sets, row.complete) == (6, 4, 6, 2, True)
    assert math.isclose(row.mean_seconds, 4.0, rel_tol=1e-12)
    assert math.isclose(row.median_seconds, 4.0, rel_tol=1e-12)
    assert math.isclose(row.success_rate, 2 / 3, rel_tol=1e-9)
    assert row.ci_low < 4.0 < row.ci_high


def test_a_set_that_is_not_finished_keeps_the_rung_off_the_axis():
    (row,) = readout_rows(fits(TWO_SETS), {"a": 3, "b": 4}).itertuples()
    assert not row.complete and row.recorded == 6 and row.problems == 7
    only_a = readout_rows(fits(TWO_SETS[:3]), {"a": 3, "b": 3})
    assert not only_a["complete"].iloc[0] and only_a["n_sets"].iloc[0] == 1


def test_a_method_that_never_succeeds_has_no_time_and_rate_zero():
    failed = [(m, b, c, p, False, s) for m, b, c, p, _, s in TWO_SETS]
    (row,) = readout_rows(fits(failed), {"a": 3, "b": 3}).itertuples()
    assert row.ok == 0 and row.success_rate == 0.0
    assert math.isnan(row.mean_seconds) and math.isnan(row.median_seconds)


def test_one_row_per_method_and_budget():
    more = TWO_SETS + [("m", 2.0, "a", "a1", True, 9.0), ("n", 1.0, "b", "b1", True, 0.5)]
    table = readout_rows(fits(more), {"a": 3, "b": 3})
    assert list(zip(table["method"], table["budget"])) == [("m", 1.0), ("m", 2.0), ("n", 1.0)]
    single = table[table["method"] == "n"].iloc[0]
    assert single["mean_seconds"] == single["median_seconds"] == 0.5
