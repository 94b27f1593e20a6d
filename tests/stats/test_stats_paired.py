"""Paired comparisons: joining, the measured margin, verdicts, MDE80, the max-tested rule."""

import numpy as np
import pytest
from scipy import stats

from srbf.stats import combine_sets, mcnemar_exact, paired_comparison, verdict, wilcoxon_pratt
from srbf.stats.paired import draw_summary, mde80


def two_methods(seed, n=240, shift=0.0, noise=0.5, sets=4, draws=2):
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 1, n)
    membership = rng.integers(0, sets, n)
    a = {(f"s{s}", i): truth[i] + rng.normal(0, noise, draws) for i, s in enumerate(membership)}
    b = {(f"s{s}", i): truth[i] - shift + rng.normal(0, noise, draws) for i, s in enumerate(membership)}
    return a, b


def test_delta_is_the_set_combination_of_per_problem_differences():
    a, b = two_methods(0, shift=0.2)
    out = paired_comparison(a, b)
    by_set = {}
    for key in a:
        by_set.setdefault(key[0], []).append(np.mean(a[key]) - np.mean(b[key]))
    combined = combine_sets(by_set)
    for name in ("estimate", "ci_low", "ci_high", "se", "df"):
        assert out["delta" if name == "estimate" else name] == pytest.approx(combined[name], rel=1e-12)
    d = np.array([np.mean(a[k]) - np.mean(b[k]) for k in sorted(a, key=repr)])
    assert out["p_value"] == pytest.approx(wilcoxon_pratt(d)["p_value"])
    assert out["test"] == "wilcoxon_pratt" and out["n_pairs"] == 240


def same(x, y):
    return x.keys() == y.keys() and all(x[k] == y[k] or (x[k] != x[k] and y[k] != y[k]) for k in x)


def test_join_is_on_problem_keys_not_on_order():
    a, b = two_methods(1, shift=0.1)
    reversed_b = dict(reversed(list(b.items())))
    assert same(paired_comparison(a, reversed_b), paired_comparison(a, b))
    shuffled = dict(zip(list(b), list(b.values())[1:] + list(b.values())[:1]))  # values moved to other keys
    assert paired_comparison(a, shuffled)["delta"] != paired_comparison(a, b)["delta"]


def test_problems_only_one_side_has_are_not_paired():
    a = {("s", 1): [1.0, 1.2], ("s", 2): [2.0, 2.1], ("s", 3): [3.0, 2.9], ("s", 4): [0.5, 0.4]}
    b = {("s", 1): [0.5, 0.7], ("s", 2): [np.nan, np.nan], ("s", 3): [2.0, 2.2], ("t", 9): [1.0, 1.0]}
    out = paired_comparison(a, b)
    assert out["n_pairs"] == 2 and out["n_a_only"] == 2 and out["n_b_only"] == 1 and out["n_unpaired"] == 2


def test_different_catalog_versions_are_refused():
    a, b = two_methods(2)
    with pytest.raises(ValueError, match="different catalog versions"):
        paired_comparison(a, b, versions=({"s0": 1, "s1": 1}, {"s0": 1, "s1": 2}))
    paired_comparison(a, b, versions=({"s0": 1}, {"s0": 1, "s9": 3}))  # fine


@pytest.mark.slow
def test_margin_is_the_95th_percentile_of_sign_flipped_split_half_differences():
    a, b = two_methods(3, n=2000, sets=1)
    out = paired_comparison(a, b, n_resamples=4000)
    da = np.array([v[0] - v[1] for v in a.values()])
    db = np.array([v[0] - v[1] for v in b.values()])
    # with one set every problem weighs 1/n; for many problems the null is nearly normal
    sd = np.sqrt(np.sum(da**2 + db**2)) / len(da)
    assert out["margin"] == pytest.approx(stats.norm.ppf(0.975) * sd, rel=0.06)
    assert out["noise_problems"] == 2000


def test_split_halves_alternate_over_available_draws():
    mean, noise, count = draw_summary(np.array([[1.0, np.nan, 3.0, 5.0, 9.0], [4.0, np.nan, np.nan, np.nan, np.nan]]))
    assert mean.tolist()[0] == pytest.approx(4.5) and count.tolist() == [4, 1]
    assert noise[0] == pytest.approx((1 + 5) / 2 - (3 + 9) / 2)  # halves: 1st and 3rd available vs 2nd and 4th
    assert np.isnan(noise[1])


def test_no_second_draw_means_no_margin_and_no_verdict():
    a = {("s", i): [float(i)] for i in range(20)}
    b = {("s", i): [float(i) - 5] for i in range(20)}
    out = paired_comparison(a, b)
    assert np.isnan(out["margin"]) and out["verdict"] == "undecided" and out["verdict_note"] == "no noise margin"


def test_verdicts_for_equal_clearly_better_and_clearly_worse():
    a, b = two_methods(4, shift=0.0)
    assert paired_comparison(a, b)["verdict"] == "equivalent"
    a, b = two_methods(4, shift=0.5)
    assert paired_comparison(a, b)["verdict"] == "better"
    assert paired_comparison(b, a)["verdict"] == "worse"
    assert paired_comparison(a, b, higher_is_better=False)["verdict"] == "worse"


@pytest.mark.slow
def test_equal_methods_are_called_equivalent_about_95_percent_of_the_time():
    calls = [paired_comparison(*two_methods(100 + r, n=150), seed=r)["verdict"] for r in range(60)]
    assert calls.count("equivalent") >= 50 and calls.count("better") + calls.count("worse") == 0


def test_verdict_table():
    assert verdict(0.2, 0.4, 0.1) == ("better", "")
    assert verdict(-0.4, -0.2, 0.1) == ("worse", "")
    assert verdict(-0.05, 0.08, 0.1) == ("equivalent", "")
    assert verdict(0.05, 0.3, 0.1) == ("undecided", "")
    assert verdict(0.2, 0.4, 0.1, higher_is_better=False) == ("worse", "")
    # the max-tested side is a lower bound: only a verdict in its favour stands
    assert verdict(0.2, 0.4, 0.1, max_tested_a=True) == ("better", "")
    assert verdict(0.2, 0.4, 0.1, max_tested_b=True) == ("undecided", "max-tested limit")
    assert verdict(-0.4, -0.2, 0.1, max_tested_a=True) == ("undecided", "max-tested limit")
    assert verdict(-0.4, -0.2, 0.1, max_tested_b=True) == ("worse", "")
    assert verdict(-0.05, 0.08, 0.1, max_tested_b=True) == ("undecided", "max-tested limit")
    assert verdict(np.nan, np.nan, 0.1)[0] == "undecided"


def test_mde80_definition_and_power():
    margin, se, df = 0.1, 0.03, 200
    expected = margin + (stats.t.ppf(0.975, df) + stats.t.ppf(0.8, df)) * se
    assert mde80(margin, se, df) == pytest.approx(expected)
    # a true difference of MDE80 clears the margin 80 % of the time (normal estimate with known se)
    rng = np.random.default_rng(5)
    estimates = rng.normal(expected, se, 200_000)
    cleared = np.mean(estimates - stats.t.ppf(0.975, df) * se > margin)
    assert cleared == pytest.approx(0.8, abs=0.01)


def test_rates_use_exact_mcnemar_on_draw_averaged_rates():
    rng = np.random.default_rng(6)
    a = {("s", i): (rng.random(2) < 0.6).astype(float) for i in range(150)}
    b = {("s", i): (rng.random(2) < 0.4).astype(float) for i in range(150)}
    out = paired_comparison(a, b, rate=True)
    keys = sorted(a, key=repr)
    expected = mcnemar_exact([np.mean(a[k]) for k in keys], [np.mean(b[k]) for k in keys])
    assert out["test"] == "mcnemar_exact"
    assert out["p_value"] == expected["p_value"] and out["wins_a"] == expected["wins_a"]


def test_plain_keys_make_one_set():
    a = {i: [float(i), float(i) + 0.1] for i in range(10)}
    b = {i: [float(i) - 1, float(i) - 0.9] for i in range(10)}
    out = paired_comparison(a, b)
    assert out["delta"] == pytest.approx(1.0) and out["df"] == 9
