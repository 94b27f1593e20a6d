"""Aggregate fidelity, rank agreement and the six selectors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from srbf.distill.selectors import DETERMINISTIC, RANDOM, largest_remainder, select
from srbf.distill.validate import fidelity, validate


def _z():
    # 4 tasks x methods p, q (probes) and r, s, t (not)
    return pd.DataFrame({"p": [1.0, 2.0, 3.0, 6.0], "q": [0.0, 0.0, 4.0, 0.0], "r": [5.0, 1.0, 0.0, 2.0],
                         "s": [0.0, 3.0, 1.0, 0.0], "t": [1.0, 1.0, 1.0, 1.0]},
                        index=["s/a", "s/b", "s/c", "s/d"])  # fmt: skip


def test_fidelity_by_hand():
    z = _z()
    found = fidelity(z, [0, 2], ["p", "q"])
    # A(D): p 3, q 1; A({a, c}): p 2, q 2 -> MAE (1 + 1) / 2 = 1, over the range 3 - 1
    assert found["mae"] == pytest.approx(1.0) and found["nmae"] == pytest.approx(0.5)
    # non-probes r, s, t: full 2, 1, 1; subset 2.5, 0.5, 1
    assert found["kendall"] == pytest.approx(kendalltau([2, 1, 1], [2.5, 0.5, 1]).statistic)
    assert fidelity(z, [0, 1, 2, 3], ["p", "q"])["mae"] == 0.0


def test_largest_remainder():
    assert largest_remainder({"a": 2.6, "b": 1.3, "c": 1.1}, 5, {"a": 9, "b": 9, "c": 9}) == {"a": 3, "b": 1, "c": 1}
    assert largest_remainder({"a": 2.6, "b": 2.4}, 5, {"a": 2, "b": 9}) == {"a": 2, "b": 3}


def _tasks(n=12):
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "task": [f"f{i % 3}/t{i}" for i in range(n)], "family": [f"f{i % 3}" for i in range(n)],
        "n_vars": rng.integers(1, 4, n), "complexity": rng.integers(3, 30, n), "info": rng.uniform(0, 1, n),
        "stab": rng.uniform(0, 1, n), "difficulty_bin": [["easy", "medium", "hard"][i % 3] for i in range(n)],
        **{f"{k}@{p}": rng.uniform(-12, 2, n) for k in ("m_id", "m_ood") for p in "pq"},
        **{f"v@{p}": rng.uniform(0, 1, n) for p in "pq"},
    })  # fmt: skip


def test_every_selector_returns_distinct_tasks_of_the_size():
    tasks = _tasks()
    for name in RANDOM + DETERMINISTIC:
        picked = select(name, tasks, 5, ["p", "q"], np.random.default_rng(1))
        assert len(set(picked.tolist())) == 5 and picked.max() < len(tasks)
    top = select("top_information", tasks, 3, ["p", "q"])
    assert set(top) == set(np.argsort(-tasks["info"].to_numpy())[:3])
    # family-stratified: every family at its largest-remainder quota of the smoothed targets (4 each: 5/3 -> 2, 2, 1)
    families = tasks["family"].iloc[select("family_stratified", tasks, 5, ["p", "q"], np.random.default_rng(2))]
    assert sorted(families.value_counts().tolist()) == [1, 2, 2]


def test_validate_table():
    tasks = _tasks(4).assign(task=["s/a", "s/b", "s/c", "s/d"])
    result = validate(tasks, _z(), [0, 2], ["p", "q"], draws=20, seed=3)
    table = result.table.set_index("selector")
    assert list(table.index) == ["core", *RANDOM, *DETERMINISTIC]
    assert table.loc["core", "mae"] == pytest.approx(1.0)
    assert table.loc["uniform_random", "draws"] == 20
    draws = result.draws[result.draws["selector"] == "uniform_random"]["mae"]
    assert table.loc["uniform_random", "mae"] == pytest.approx(draws.mean())
    assert table.loc["uniform_random", "mae_sd"] == pytest.approx(draws.std(ddof=1))
    assert result.scores.set_index("method").loc["p", "core"] == pytest.approx(2.0)
