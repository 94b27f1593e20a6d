"""Equal time on hand-made ladders: interpolation in log time, n/a, max tested, measured."""

import numpy as np
import pytest

from srbf.stats import interpolate_at_time, time_weights
from srbf.stats.timeaxis import budget_times, ladder_times

TIMES = [0.5, 2.0, 8.0, 32.0]  # seconds of budgets 1, 2, 4, 8
VALUES = np.array([[0.1, 0.3, 0.5, 0.9],  # problem 1
                   [0.0, 0.2, np.nan, 1.0]])  # problem 2: no value at the third budget


def test_interpolates_linearly_in_log_time():
    values, status = interpolate_at_time(TIMES, VALUES, 1.0)  # halfway between 0.5 and 2 in log time
    assert status == "interpolated"
    assert values == pytest.approx([0.2, 0.1])
    values, _ = interpolate_at_time(TIMES, VALUES, 4.0)  # halfway between 2 and 8; problem 2 missing at 8
    assert values[0] == pytest.approx(0.4) and np.isnan(values[1])
    f = (np.log(3.0) - np.log(2.0)) / (np.log(8.0) - np.log(2.0))
    values, _ = interpolate_at_time(TIMES, VALUES, 3.0)
    assert values[0] == pytest.approx(0.3 + f * 0.2)


def test_below_the_cheapest_budget_is_not_available():
    values, status = interpolate_at_time(TIMES, VALUES, 0.1)
    assert status == "n/a" and np.isnan(values).all()


def test_above_the_largest_budget_carries_the_last_value_forward():
    values, status = interpolate_at_time(TIMES, VALUES, 1000.0)
    assert status == "max_tested"
    assert values.tolist() == [0.9, 1.0]


def test_a_measured_time_takes_that_budget_even_next_to_a_missing_value():
    values, status = interpolate_at_time(TIMES, VALUES, 2.0)
    assert status == "measured" and values.tolist() == [0.3, 0.2]
    values, status = interpolate_at_time(TIMES, VALUES, 32.0)
    assert status == "measured" and values.tolist() == [0.9, 1.0]


def test_unsorted_ladders_and_untimed_budgets():
    # budgets whose times are not in budget order, and one budget never timed
    times = [8.0, np.nan, 0.5, 2.0]
    values = np.array([0.5, 99.0, 0.1, 0.3])
    assert interpolate_at_time(times, values, 1.0)[0] == pytest.approx(0.2)
    assert time_weights(times, 1.0)[:2] == (2, 3)
    assert time_weights([np.nan, np.nan], 1.0)[3] == "n/a"
    assert interpolate_at_time(times, values, 100.0)[0] == pytest.approx(0.5)


def test_declared_marks_on_a_ladder():
    # a method timed at 0.3 s .. 40 s: 1 s and 10 s interpolated, 100 s and 1000 s max tested
    times = [0.3, 1.2, 5.0, 40.0]
    statuses = [time_weights(times, t)[3] for t in (1, 10, 100, 1000)]
    assert statuses == ["interpolated", "interpolated", "max_tested", "max_tested"]
    # a slow method: its cheapest budget takes 3 s, so 1 s is n/a
    assert time_weights([3.0, 30.0], 1.0)[3] == "n/a"


def test_budget_times_are_medians_of_usable_predictions():
    seconds = np.array([[1.0, 2.0, 100.0], [3.0, np.nan, 5.0]])
    success = np.array([[1, 1, 0], [1, 0, 1]])
    assert budget_times(seconds, success, axis=1).tolist() == [1.5, 4.0]


def test_a_method_without_usable_predictions_is_timed_by_all_of_them():
    nan = np.nan
    seconds = np.array([  # 3 methods x 2 budgets x 2 problems x 1 draw
        [[[1.0], [3.0]], [[100.0], [200.0]]],  # budget 2 never usable: stays untimed
        [[[0.2], [0.4]], [[0.6], [0.8]]],  # never usable at all: timed by every prediction
        [[[nan], [nan]], [[nan], [nan]]],  # no seconds at all: untimed
    ])
    success = np.array([[[[1], [1]], [[0], [0]]], [[[0], [0]], [[0], [0]]], [[[0], [0]], [[0], [0]]]])
    times = ladder_times(seconds, success)
    assert times[0, 0] == 2.0 and np.isnan(times[0, 1])
    assert times[1].tolist() == [pytest.approx(0.3), pytest.approx(0.7)]
    assert np.isnan(times[2]).all()


def test_bad_input():
    with pytest.raises(ValueError, match="positive"):
        time_weights(TIMES, 0.0)
    with pytest.raises(ValueError, match="one column per budget"):
        interpolate_at_time(TIMES, np.zeros((2, 3)), 1.0)
