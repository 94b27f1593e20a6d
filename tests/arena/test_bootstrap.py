"""The task bootstrap: reproducible draws, the same draws for every method (srbf.arena.bootstrap)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from srbf.arena.bootstrap import interval, task_weights
from srbf.arena.collect import ArenaData
from srbf.arena.profile import profile


def test_the_same_seed_gives_the_same_draws():
    a, b = task_weights(7, 200, seed=3), task_weights(7, 200, seed=3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, task_weights(7, 200, seed=4))
    assert a.shape == (200, 7) and (a.sum(axis=1) == 7).all()  # each replicate draws as many tasks as there are


def test_interval_is_the_percentile_interval_of_the_replicate_means():
    weights = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # replicate means 1, 3 and 2
    low, high = interval(weights, np.array([1.0, 3.0]), np.array([1.0, 1.0]))
    assert (low, high) == pytest.approx((1.05, 2.95))  # linear percentiles of (1, 2, 3)


def test_interval_weighs_runs_not_tasks():
    # task 0 holds two runs summing to 2 (mean 1), task 1 one run of 4: both drawn once -> 6 / 3
    weights = np.array([[1.0, 1.0]])
    assert interval(weights, np.array([2.0, 4.0]), np.array([2.0, 1.0])) == pytest.approx((2.0, 2.0))


def _runs(method: str, values: list[float], tasks: list[str]) -> pd.DataFrame:
    return pd.DataFrame({
        "method": method, "budget": 1.0, "condition": "n_support=8;noise=0", "noise": 0.0, "n_support": 8,
        "task": tasks, "id": values, "ood": values, "sym": values, "min": values, "eff": values,
        "ood_note": "", "eff_note": "",
    })  # fmt: skip


def test_every_method_is_resampled_with_the_same_task_draws():
    tasks = [f"set/P{i}" for i in range(12)]
    rng = np.random.default_rng(1)
    base = rng.random(12) * 0.5
    runs = pd.concat([_runs("a", list(base), tasks), _runs("b", list(base + 0.25), tasks)], ignore_index=True)
    stability = pd.DataFrame(columns=["method", "budget", "condition", "task", "stab", "repeats"])
    table = profile(ArenaData(runs, stability, pd.DataFrame(), pd.DataFrame()), replicates=300, seed=5).set_index("method")
    for axis in ("id", "ood", "sym", "min", "eff"):
        # b is a plus 25 points on every task: with the same draws its interval is a's shifted by exactly 25
        assert table.loc["b", f"{axis}_low"] - table.loc["a", f"{axis}_low"] == pytest.approx(25.0)
        assert table.loc["b", f"{axis}_high"] - table.loc["a", f"{axis}_high"] == pytest.approx(25.0)
    again = profile(ArenaData(runs, stability, pd.DataFrame(), pd.DataFrame()), replicates=300, seed=5)
    pd.testing.assert_frame_equal(again.set_index("method"), table)
    assert "STAB: needs 2 repeats per task (found 0)" in table.loc["a", "notes"]


def test_stab_of_a_method_that_takes_no_seed_says_so():
    # eggp's method.yaml says reproducible: false; the built-in linear takes its seed (trivially)
    tasks = ["set/P0", "set/P1"]
    runs = pd.concat([_runs("eggp", [0.5, 0.5], tasks), _runs("linear", [0.5, 0.5], tasks)], ignore_index=True)
    runs["method_name"] = runs["method"]
    stability = pd.DataFrame({
        "method": ["eggp", "eggp", "linear", "linear"], "budget": 1.0, "condition": "n_support=8;noise=0",
        "task": tasks * 2, "stab": 1.0, "repeats": 3,
    })  # fmt: skip
    table = profile(ArenaData(runs, stability, pd.DataFrame(), pd.DataFrame()), replicates=50, seed=1).set_index("method")
    assert table.loc["eggp", "stab"] == pytest.approx(100.0)
    assert "STAB: the method takes no seed" in table.loc["eggp", "notes"]
    assert "STAB" not in table.loc["linear", "notes"]
