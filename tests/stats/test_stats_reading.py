"""Where results are read (``choose_reading``), same-configuration pairs, and bounded intervals."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from srbf.stats import analyze
from srbf.stats.reading import choose_reading, measured_times


def frame(seconds: dict[str, float], budgets=(1.0, 4.0), problems: int = 12, seed: int = 0,
          adapter: dict | None = None) -> pd.DataFrame:
    """Methods whose budget b takes seconds[m] * b; r2 near 1 with spread; a rate."""
    rng = np.random.default_rng(seed)
    rows = []
    for method, base in seconds.items():
        for p, b, d in itertools.product(range(problems), budgets, range(2)):
            rows.append({"method": method, "catalog": "s", "catalog_version": 1, "problem_id": f"p{p}", "draw": d,
                         "budget": b, "seconds": base * b, "success": 1.0,
                         "r2_validation": min(1.0, 0.97 + rng.normal(0, 0.05)),
                         "nrr_validation": float(rng.random() < 0.5 + 0.1 * b / 4),
                         "adapter": (adapter or {}).get(method, f"builtin:{method}")})
    return pd.DataFrame(rows)


def test_time_marks_when_every_ladder_reaches_one():
    reading = choose_reading(frame({"a": 0.5, "b": 2.0}))  # a: 0.5-2 s, b: 2-8 s: both reach 2 s? no mark; 1 s? b no
    assert reading.axis == "max_budget" and reading.chosen == "data"
    assert "no time mark among 1, 10, 100, 1000 s" in reading.reason and "a 0.5 s to 2 s" in reading.reason
    reading = choose_reading(frame({"a": 0.5, "b": 0.8}))  # a: 0.5-2 s, b: 0.8-3.2 s: both reach 1 s
    assert reading.axis == "time" and reading.times == (1.0, 10.0, 100.0, 1000.0)
    assert reading.reason == "every method's measured times reach 1 s"
    assert "chosen from the data" in reading.line and "--at-budget max" in reading.line


def test_a_reading_asked_for_is_taken_and_bad_ones_refused():
    data = frame({"a": 0.5, "b": 0.8})
    assert choose_reading(data, at_budget="max").axis == "max_budget"
    asked = choose_reading(data, at_seconds=[3])
    assert (asked.axis, asked.times, asked.chosen) == ("time", (3.0,), "asked")
    with pytest.raises(ValueError, match="exclude each other"):
        choose_reading(data, at_budget="max", at_seconds=[3])
    with pytest.raises(ValueError, match="must be one of max"):
        choose_reading(data, at_budget="min")


def test_untimed_methods_read_at_their_largest_budgets():
    data = frame({"a": 0.5, "b": 0.8}).assign(seconds=np.nan)
    reading = choose_reading(data)
    assert reading.axis == "max_budget" and reading.reason == "some method has no measured time"
    assert measured_times(data).empty
    axis = pd.DataFrame({"method": ["a", "a", "b", "b"], "budget": [1.0, 4.0, 1.0, 4.0], "seconds": [1, 20, 5, 50]})
    assert choose_reading(data, time_axis=axis).axis == "time"  # a timing readout places them


def test_measured_times_are_the_analysis_time_axis():
    data = frame({"a": 0.5, "b": 0.8})
    expected = analyze(data, ["nrr_validation"], times=(1.0,)).time_axis
    pd.testing.assert_frame_equal(measured_times(data).sort_values(["method", "budget"]).reset_index(drop=True),
                                  expected.sort_values(["method", "budget"]).reset_index(drop=True),
                                  check_dtype=False)


def test_same_configuration_pairs_are_compared_at_each_budget():
    data = frame({"a": 0.5, "a2": 0.6, "b": 0.8}, adapter={"a": "file:/x.py", "a2": "file:/x.py"})
    out = analyze(data, ["nrr_validation"], times=(1.0,), same_configuration=[("a", "a2")]).comparisons
    same = out[out["same_configuration"]]
    assert set(zip(same["method_a"], same["method_b"])) == {("a", "a2")}
    assert set(same["axis"]) == {"budget"} and sorted(same["budget"]) == [1.0, 4.0]
    rest = out[~out["same_configuration"]]
    assert set(rest["axis"]) == {"time"} and ("a", "a2") not in set(zip(rest["method_a"], rest["method_b"]))
    # the same pair, compared at budgets by the Python API's compare_at="budget", gives the same numbers
    by_budget = analyze(data, ["nrr_validation"], times=(), compare_at="budget").comparisons
    by_budget = by_budget[(by_budget["method_a"] == "a") & (by_budget["method_b"] == "a2")]
    for column in ("delta", "ci_low", "ci_high", "margin", "p_value"):
        np.testing.assert_allclose(same.sort_values("budget")[column], by_budget.sort_values("budget")[column])


def test_intervals_of_bounded_metrics_stay_within_their_bounds():
    data = frame({"a": 0.5, "b": 0.8}, problems=4)
    aggregates = analyze(data, ["r2_validation", "nrr_validation"], times=(1.0,)).aggregates
    r2 = aggregates[aggregates["metric"] == "r2_validation"]
    assert (r2["ci_high"] <= 1.0).all() and (r2["estimate"] <= 1.0).all()
    rates = aggregates[aggregates["metric"] == "nrr_validation"]
    assert ((rates["ci_low"] >= 0) & (rates["ci_high"] <= 1)).all()
    comparisons = analyze(data, ["nrr_validation"], times=(1.0,)).comparisons
    assert ((comparisons["ci_low"] >= -1) & (comparisons["ci_high"] <= 1)).all()
