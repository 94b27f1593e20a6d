"""Weighted medians (sets weighted as the average weighs them) and the expression bootstrap."""

import numpy as np
import pytest

from srbf.stats import bootstrap_median, weighted_median
from srbf.stats.median import set_weighted_median, set_weighted_median_rows, weighted_median_rows


@pytest.mark.parametrize("values", [[3.0], [1.0, 2.0], [5.0, 1.0, 3.0], [4.0, 1.0, 3.0, 2.0], [1.0, 1.0, 2.0, 9.0]])
def test_equal_weights_give_the_usual_median(values):
    assert weighted_median(values) == np.median(values)


def test_weights_move_the_median():
    assert weighted_median([1.0, 2.0, 3.0], [1, 1, 5]) == 3.0
    assert weighted_median([1.0, 2.0, 3.0], [3, 1, 1]) == 1.0
    assert weighted_median([1.0, 2.0, 3.0, 4.0], [1, 2, 2, 1]) == 2.5  # lands exactly on one half
    assert weighted_median([1.0, 2.0, 3.0], [0, 0, 1]) == 3.0


def test_infinity_counts_as_worst_and_nan_is_left_out():
    assert weighted_median([-3.0, np.inf, np.inf]) == np.inf
    assert weighted_median([-3.0, -2.0, np.inf]) == -2.0
    assert weighted_median([1.0, np.nan, 3.0]) == 2.0
    assert np.isnan(weighted_median([np.nan]))
    with pytest.raises(ValueError, match="non-negative"):
        weighted_median([1.0, 2.0], [1.0, -1.0])


def test_sets_are_weighted_as_the_average_weighs_them():
    # set 0: 1 problem at 10; set 1: 9 problems at 0. Equal set weights: half the weight sits at 10.
    values = np.array([10.0] + [0.0] * 9)
    codes = np.array([0] + [1] * 9)
    assert set_weighted_median(values, codes, [0.5, 0.5]) == 5.0
    assert set_weighted_median(values, codes, [0.6, 0.4]) == 10.0
    assert set_weighted_median(values, codes, [0.1, 0.9]) == 0.0
    # a set the mean left out (weight NaN) weighs as the average set
    assert set_weighted_median(values, codes, [np.nan, 0.5]) == 5.0
    rows = set_weighted_median_rows(np.vstack([values, values]), codes, np.array([[0.6, 0.4], [0.1, 0.9]]))
    assert rows.tolist() == [10.0, 0.0]


def test_rows_match_one_at_a_time():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (50, 9)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[rng.random(x.shape) < 0.05] = np.inf
    w = rng.integers(0, 3, x.shape).astype(float)
    expected = [weighted_median(x[r], w[r]) for r in range(50)]
    assert np.allclose(weighted_median_rows(x, w), expected, equal_nan=True)


def test_bootstrap_is_reproducible_and_centred():
    rng = np.random.default_rng(1)
    x = rng.normal(2.0, 1.0, 3000)
    out = bootstrap_median(x, seed=7)
    assert out == bootstrap_median(x, seed=7)
    assert out["n"] == 3000 and out["n_resamples"] == 1000
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert out["median"] == pytest.approx(x.mean(), abs=0.2 * se)
    assert out["high"] - out["low"] == pytest.approx(2 * 1.96 * se, rel=0.1)


def test_bootstrap_edge_cases():
    assert bootstrap_median([4.0, 4.0, 4.0]) == {"median": 4.0, "low": 4.0, "high": 4.0, "n": 3, "n_resamples": 1000}
    assert np.isnan(bootstrap_median([np.nan])["median"])
    with pytest.raises(ValueError, match="infinite"):
        bootstrap_median([1.0, np.inf])


def test_bootstrap_of_the_median_matches_its_large_sample_spread():
    """The median of n normal values has standard error about sqrt(pi / 2) * sigma / sqrt(n)."""
    rng = np.random.default_rng(2)
    x = rng.normal(5.0, 2.0, 2001)
    out = bootstrap_median(x, seed=3, statistic="median")
    se = np.sqrt(np.pi / 2) * 2.0 / np.sqrt(x.size)
    assert out["median"] == pytest.approx(np.median(x), abs=0.3 * se)
    assert out["high"] - out["low"] == pytest.approx(2 * 1.96 * se, rel=0.2)
    skewed = np.r_[np.zeros(60), np.full(40, 100.0)]  # the median resists the tail the mean follows
    assert bootstrap_median(skewed, seed=1, statistic="median")["high"] == 0.0
    assert bootstrap_median(skewed, seed=1)["low"] > 20
    with pytest.raises(ValueError, match="statistic must be"):
        bootstrap_median(x, statistic="mode")
