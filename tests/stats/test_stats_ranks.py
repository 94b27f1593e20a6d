"""Ranks: Friedman against scipy, the Nemenyi q against Demsar's table, CD groups, failures last."""

import numpy as np
import pytest
from scipy import stats

from srbf.stats import critical_difference, friedman_nemenyi, nemenyi_q
from srbf.stats.ranks import cd_groups, friedman, rank_rows

# Demsar (2006), Table 5(a): q_0.05 for k = 2 .. 10 (Studentized range / sqrt 2, infinite df)
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]


@pytest.mark.parametrize("k,q", list(zip(range(2, 11), DEMSAR_Q05)))
def test_nemenyi_q_matches_demsar_table(k, q):
    # the table rounds to three decimals (its k = 3 and k = 7 entries differ by one in the last digit)
    assert nemenyi_q(k, 0.05) == pytest.approx(q, abs=1.5e-3)


def test_critical_difference_formula():
    for k, q in zip(range(2, 11), DEMSAR_Q05):
        n = 37
        assert critical_difference(k, n) == pytest.approx(q * np.sqrt(k * (k + 1) / (6 * n)), abs=2e-3)
    # Demsar's worked example: k = 4 classifiers, N = 14 data sets, CD = 1.25 at alpha 0.05
    assert critical_difference(4, 14) == pytest.approx(1.25, abs=0.01)


@pytest.mark.parametrize("ties", [False, True])
def test_friedman_matches_scipy_including_ties(ties, global_random_seed):
    rng = np.random.default_rng(global_random_seed)
    scores = rng.normal(0, 1, (40, 5)) + np.array([0, 0.2, 0.4, 0.6, 0.8])
    if ties:
        scores = np.round(scores)  # many ties within problems
    out = friedman_nemenyi(scores)
    theirs = stats.friedmanchisquare(*(-scores).T)
    assert out["statistic"] == pytest.approx(theirs.statistic, rel=1e-10)
    assert out["p_value"] == pytest.approx(theirs.pvalue, rel=1e-8)
    assert out["mean_ranks"] == pytest.approx(stats.rankdata(-scores, axis=1).mean(0))


def test_lower_is_better_ranks_the_smallest_first():
    out = friedman_nemenyi(np.array([[1.0, 2.0, 3.0]] * 5), higher_is_better=False)
    assert out["mean_ranks"].tolist() == [1.0, 2.0, 3.0]


def test_failures_rank_last_with_ties_averaged_even_behind_infinity():
    scores = np.array([[0.5, np.nan, -np.inf, np.nan], [1.0, 2.0, 3.0, 4.0]])
    ranks = rank_rows(scores)
    assert ranks[0].tolist() == [1.0, 3.5, 2.0, 3.5]
    assert ranks[1].tolist() == [4.0, 3.0, 2.0, 1.0]


def test_groups_only_when_friedman_is_significant():
    rng = np.random.default_rng(3)
    noise = rng.normal(0, 1, (8, 4))
    out = friedman_nemenyi(noise)
    assert out["p_value"] > 0.05 and out["groups"] == [] and not out["significant"]
    strong = rng.normal(0, 0.3, (200, 4)) + np.array([0.0, 0.05, 1.0, 2.0])
    out = friedman_nemenyi(strong)
    assert out["significant"]
    assert [sorted(g) for g in out["groups"]] == [[0, 1]]  # columns 0 and 1 closer than one CD; 2 and 3 apart


def test_cd_groups_are_maximal_runs():
    assert cd_groups([1.0, 1.5, 2.2, 2.6, 4.0], cd=1.0) == [[0, 1], [1, 2], [2, 3]]
    assert cd_groups([1.0, 1.5, 2.2, 2.4, 4.0], cd=1.0) == [[0, 1], [1, 2, 3]]
    assert cd_groups([1.0, 3.0, 5.0], cd=1.0) == []
    assert cd_groups([2.0, 2.0, 2.0], cd=0.5) == [[0, 1, 2]]


def test_all_ties_give_no_evidence():
    out = friedman_nemenyi(np.ones((10, 3)))
    assert out["statistic"] == 0 and out["p_value"] == 1 and out["groups"] == []
    assert out["mean_ranks"].tolist() == [2.0, 2.0, 2.0]


def test_friedman_of_ranks_directly():
    ranks = np.array([[1, 2, 3], [1, 3, 2], [1, 2, 3]], dtype=float)
    theirs = stats.friedmanchisquare(*ranks.T)
    assert friedman(ranks)["statistic"] == pytest.approx(theirs.statistic)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="two methods"):
        friedman_nemenyi(np.ones((5, 1)))
    with pytest.raises(ValueError, match="2-D"):
        friedman_nemenyi(np.ones(5))
