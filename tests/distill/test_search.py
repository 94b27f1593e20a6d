"""The objective, the constraints and the search on a small task set whose optimum is known by brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from srbf.distill.constraints import check, constraints, family_targets, violations
from srbf.distill.errors import DistillError
from srbf.distill.objective import Objective, structural_distance
from srbf.distill.search import search

PROBES = ["a", "b"]


def synthetic_tasks(n: int = 11, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        m = rng.uniform(-10, 2, size=4)
        rows.append({
            "task": f"set{i % 3}/p{i}", "family": f"set{i % 3}", "name": f"p{i}" if i != 5 else "p4",
            "dup_group": f"g{i}" if i != 7 else "g6", "n_vars": 1 + i % 3, "complexity": 3 + 2 * i,
            "operators": ["add", "add mul", "sin mul", "exp"][i % 4],
            "m_id@a": m[0], "m_ood@a": m[1], "v@a": 1.0, "m_id@b": m[2], "m_ood@b": m[3] if i != 2 else np.nan,
            "v@b": [1.0, 2 / 3, 1 / 3][i % 3], "info": rng.uniform(0, 1), "difficulty": m.mean(),
            "winner": ["a", "b", ""][i % 3], "limited": i % 3 != 0, "one_sided": i == 4, "unstable": i % 5 == 0,
            "all_struggle": i % 4 == 1, "ood_degraded": i % 2 == 0,
        })  # fmt: skip
    frame = pd.DataFrame(rows)
    frame["difficulty_bin"] = pd.cut(frame["difficulty"], [-np.inf, -7, -4, -2, np.inf],
                                     labels=["easy", "medium", "hard", "extreme"]).astype(str)  # fmt: skip
    return frame


def brute_force(objective, bounds, size, n):
    best = None
    for subset in itertools.combinations(range(n), size):
        if violations(subset, bounds):
            continue
        j = objective.terms(subset).j
        if best is None or j > best[0] + 1e-12:
            best = (j, subset)
    return best


@pytest.mark.parametrize("size", [3, 4, 5])
def test_search_finds_the_brute_force_optimum(size):
    tasks = synthetic_tasks()
    bounds = constraints(tasks, size)
    objective = Objective(tasks, PROBES)
    best_j, best_subset = brute_force(objective, bounds, size, len(tasks))
    found = search(objective, bounds, size, starts=6, seed=1)
    assert found is not None and not violations(found.subset, bounds)
    assert found.terms.j == pytest.approx(best_j, abs=1e-12)
    assert found.subset == best_subset


def test_terms_by_hand():
    tasks = synthetic_tasks(6)
    objective = Objective(tasks, PROBES)
    subset = [0, 3]
    structural = 1 - structural_distance(tasks)
    assert structural[0, 1] == pytest.approx(1 - (1 + 1 / 2 + 2 / 10 + 1 / 2) / 4)  # family, vars, complexity, ops
    coverage_s = structural[subset].max(axis=0).mean()
    vectors = []
    for _, r in tasks.iterrows():
        row = []
        for p in PROBES:
            for split in ("id", "ood"):
                m = r[f"m_{split}@{p}"]
                row.append(1.0 if math.isnan(m) else (m + 12) / 24)
            row.append(r[f"v@{p}"])
        vectors.append(row)
    vectors = np.array(vectors)
    response = 1 - np.abs(vectors[:, None] - vectors[None]).mean(axis=2)
    coverage = 0.6 * coverage_s + 0.4 * response[subset].max(axis=0).mean()
    mean_info = tasks["info"].iloc[subset].mean()
    d = np.sort(tasks["difficulty"].to_numpy())
    chosen = tasks["difficulty"].iloc[subset].to_numpy()
    grid = np.unique(d)
    w1 = sum(abs((chosen <= g).mean() - (d <= g).mean()) * (h - g) for g, h in itertools.pairwise(grid))
    w = min(1.0, w1 / np.abs(d - d.mean()).mean())
    flags = ["limited", "one_sided", "unstable", "all_struggle", "ood_degraded"]
    gap = np.mean([abs(tasks[f].iloc[subset].mean() - tasks[f].mean()) for f in flags])
    balance = 1 - (w + gap) / 2
    terms = objective.terms(subset)
    assert terms.coverage == pytest.approx(coverage)
    assert terms.mean_info == pytest.approx(mean_info)
    assert terms.balance == pytest.approx(balance)
    assert terms.j == pytest.approx(0.45 * coverage + 0.35 * mean_info + 0.20 * balance)
    assert objective.add_values([0], np.array([3]))[0] == pytest.approx(terms.j)
    assert objective.swap_values([0, 1], 1, np.array([3]))[0] == pytest.approx(terms.j)


def test_constraints_bounds():
    tasks = synthetic_tasks()
    bounds = {c.name: c for c in constraints(tasks, 4)}
    targets = family_targets({"set0": 4, "set1": 4, "set2": 3}, 4)
    assert targets["set2"] == pytest.approx(4 * (0.6 * 3 / 11 + 0.4 / 3))
    family = bounds["family"]
    t = targets["set0"]
    assert family.low[0] == max(1, math.floor(t - 1)) and family.high[0] == math.ceil(t + 2)
    assert "name p4: 2 not in [0, 1]" in violations([5, 4, 0, 1], list(bounds.values()))
    assert any(v.startswith("duplicate group g6") for v in violations([6, 7, 0, 1], list(bounds.values())))


def test_an_impossible_size_is_refused_in_one_line():
    tasks = synthetic_tasks()
    bounds = constraints(tasks, 11)
    with pytest.raises(DistillError, match=r"--size 11: at most 10 task\(s\) can meet the duplicate group constraint"):
        check(bounds, 11, len(tasks))
    with pytest.raises(DistillError, match="--size 12: the records have 11 eligible"):
        check(bounds, 12, len(tasks))
