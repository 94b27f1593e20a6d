"""McNemar against scipy's binomial test, Wilcoxon-Pratt against scipy.stats.wilcoxon."""

import numpy as np
import pytest
from scipy import stats

from srbf.stats import mcnemar_exact, wilcoxon_pratt


@pytest.mark.parametrize("seed", range(6))
def test_mcnemar_is_the_binomial_test_of_discordant_problems(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    a = (rng.random(n) < rng.random()).astype(float)
    b = (rng.random(n) < rng.random()).astype(float)
    out = mcnemar_exact(a, b)
    wins_a = int(np.sum((a == 1) & (b == 0)))
    wins_b = int(np.sum((a == 0) & (b == 1)))
    assert (out["wins_a"], out["wins_b"], out["ties"]) == (wins_a, wins_b, n - wins_a - wins_b)
    expected = stats.binomtest(wins_a, wins_a + wins_b, 0.5).pvalue if wins_a + wins_b else 1.0
    assert out["p_value"] == pytest.approx(expected, rel=1e-10)


def test_mcnemar_on_draw_averaged_rates_and_nan():
    a = np.array([1.0, 0.5, 0.5, 0.0, np.nan, 1.0])
    b = np.array([0.5, 0.5, 0.0, 0.0, 1.0, 1.0])
    out = mcnemar_exact(a, b)
    assert (out["wins_a"], out["wins_b"], out["ties"], out["n"]) == (2, 0, 3, 5)
    assert out["p_value"] == pytest.approx(stats.binomtest(2, 2).pvalue)
    assert mcnemar_exact([1.0, 0.0], [1.0, 0.0])["p_value"] == 1.0


@pytest.mark.parametrize("seed,n,zeros,round_to", [(0, 80, 5, None), (1, 200, 30, 1), (2, 60, 0, 0), (3, 500, 50, 2),
                                                   (4, 14, 3, 1)])
def test_wilcoxon_pratt_asymptotic_matches_scipy(seed, n, zeros, round_to):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.2, 1, n)
    if round_to is not None:
        d = np.round(d, round_to)  # ties
    d[:zeros] = 0.0
    ours = wilcoxon_pratt(d, method="asymptotic")
    theirs = stats.wilcoxon(d, zero_method="pratt", method="asymptotic")
    assert ours["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
    assert ours["statistic"] == pytest.approx(theirs.statistic)
    assert abs(ours["z"]) == pytest.approx(abs(theirs.zstatistic), rel=1e-9)


@pytest.mark.parametrize("seed,n", [(5, 10), (6, 25), (7, 50)])
def test_wilcoxon_exact_without_ties_matches_scipy(seed, n):
    d = np.random.default_rng(seed).normal(0.4, 1, n)
    ours = wilcoxon_pratt(d)
    assert ours["method"] == "exact"
    assert ours["p_value"] == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue, rel=1e-9)


@pytest.mark.parametrize("d", [[0.0, 1.0, 1.0, 2.0, -1.0, 3.0, 0.0, 2.0],
                               [0.5, 0.5, -0.5, 1.0, 1.0, 1.0, 0.0, 2.0, 2.0, -2.0, 0.5, 3.0, 0.0]])
@pytest.mark.slow
def test_wilcoxon_small_with_ties_or_zeros_enumerates_like_scipy(d):
    ours = wilcoxon_pratt(d)
    assert ours["method"] == "enumerate"
    assert ours["p_value"] == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue, rel=1e-9)


def test_wilcoxon_auto_picks_scipys_method_for_large_samples():
    d = np.round(np.random.default_rng(8).normal(0.1, 1, 300), 1)
    assert wilcoxon_pratt(d)["method"] == "asymptotic"
    assert wilcoxon_pratt(d)["p_value"] == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue, rel=1e-9)


def test_wilcoxon_all_zero_and_nan():
    assert wilcoxon_pratt([0.0, 0.0, 0.0])["p_value"] == 1.0
    a = wilcoxon_pratt([1.0, np.nan, 2.0, -0.5, 3.0, 4.0])
    b = wilcoxon_pratt([1.0, 2.0, -0.5, 3.0, 4.0])
    assert a["p_value"] == b["p_value"] and a["n"] == 5
