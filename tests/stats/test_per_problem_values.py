"""``srbf.stats.per_problem_values``: one value per method, budget and problem, the draws averaged
by the metric's rule, checked against pandas on a random frame and on the rule's edge cases."""

import math

import numpy as np
import pandas as pd
import pytest

from srbf.stats import per_problem_values


def _frame(seed=0):
    rng = np.random.default_rng(seed)
    rows = [{"method": m, "catalog": c, "catalog_version": 1, "problem_id": f"p{i}", "draw": d, "budget": b,
             "success": 1.0, "token_count_prediction": float(rng.integers(1, 30))}
            for m in ("a", "b") for c in ("s1", "s2") for i in range(4) for b in (1.0, 2.0) for d in range(3)]
    return pd.DataFrame(rows)


def test_the_draws_mean_per_problem_equals_pandas():
    frame = _frame()
    got = per_problem_values(frame, "token_count_prediction")
    expected = frame.groupby(["method", "budget", "catalog", "problem_id"])["token_count_prediction"].mean()
    assert len(got) == len(expected)
    for row in got.itertuples():
        assert row.value == pytest.approx(expected[(row.method, row.budget, row.catalog, row.problem_id)])


def test_failures_are_missing_and_infinities_follow_the_rule():
    frame = _frame()
    frame["r2_validation"] = 0.5
    frame.loc[(frame["problem_id"] == "p0") & (frame["draw"] == 0), "r2_validation"] = -math.inf
    frame.loc[frame["problem_id"] == "p1", "r2_validation"] = -math.inf
    failed = frame["problem_id"] == "p2"
    frame.loc[failed, "success"] = 0.0
    frame.loc[failed, "r2_validation"] = np.nan
    values = per_problem_values(frame, "r2_validation")
    values = values.set_index(["method", "budget", "catalog", "problem_id"])["value"]
    assert values[("a", 1.0, "s1", "p0")] == 0.5  # one draw blew up: the mean leaves it out
    assert values[("a", 1.0, "s1", "p1")] == -math.inf  # every draw blew up: kept, the worst
    assert np.isnan(values[("a", 1.0, "s1", "p2")])  # every fit failed: missing, not made up
    assert values[("a", 1.0, "s1", "p3")] == 0.5
