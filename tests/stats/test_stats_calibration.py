"""Calibrated verdicts: identical outputs, and how often an A/A comparison is called wrong on
simulated data with known noise (benchmarks/calibration.py measures the same on real runs)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from srbf.stats import analyze, paired_comparison, verdict
from srbf.stats.paired import compare_arrays, draw_summary


def test_identical_rates_at_zero_are_equivalent_with_a_measured_margin_of_zero():
    # two copies of a method that recovers nothing: every paired difference is exactly 0
    a = {("s", i): [0.0, 0.0] for i in range(30)}
    out = paired_comparison(a, dict(a), rate=True)
    assert (out["verdict"], out["verdict_note"]) == ("equivalent", "identical outputs")
    assert out["identical"] is True
    assert out["margin"] == 0.0  # measured, not missing
    assert (out["delta"], out["ci_low"], out["ci_high"], out["se"]) == (0.0, 0.0, 0.0, 0.0)
    assert out["noise_problems"] == 30 and out["p_value"] == 1.0


def test_identical_continuous_outputs_are_equivalent_even_without_a_noise_margin():
    rng = np.random.default_rng(1)
    a = {(f"s{i % 3}", i): [v] for i, v in enumerate(rng.normal(size=25))}  # one draw: no split halves
    out = paired_comparison(a, dict(a))
    assert np.isnan(out["margin"]) and out["noise_problems"] == 0
    assert (out["verdict"], out["verdict_note"]) == ("equivalent", "identical outputs")


def test_one_differing_problem_is_not_identical():
    a = {("s", i): [0.0, 0.0] for i in range(30)}
    b = dict(a)
    b[("s", 7)] = [0.0, 1.0]
    out = paired_comparison(a, b, rate=True)
    assert out["identical"] is False and out["verdict_note"] != "identical outputs"


def test_identical_verdict_still_respects_the_max_tested_rule():
    assert verdict(0.0, 0.0, 0.0, identical=True) == ("equivalent", "identical outputs")
    assert verdict(np.nan, np.nan, np.nan, identical=True) == ("equivalent", "identical outputs")
    assert verdict(0.0, 0.0, 0.0, max_tested_b=True, identical=True) == ("undecided", "max-tested limit")
    assert verdict(-2e-145, 2e-145, 0.0) == ("undecided", "")  # the old reading of identical outputs


def test_identical_methods_in_a_frame_read_equivalent_at_budget_and_time():
    rows = []
    for method in ("copy-a", "copy-b"):
        for i in range(12):
            for draw in range(2):
                for budget, seconds in ((1.0, 0.5), (2.0, 1.0)):
                    rows.append({"method": method, "catalog": "nguyen" if i < 6 else "feynman", "catalog_version": 1,
                                 "problem_id": f"p{i}", "draw": draw, "budget": budget, "seconds": seconds,
                                 "success": 1.0, "nrr_validation": 0.0, "log10_fvu_validation": -1.0 - 0.1 * i})
    frame = pd.DataFrame(rows)
    for options in ({"times": (0.7,)}, {"times": (), "compare_at": "budget"}):
        table = analyze(frame, ["nrr_validation", "log10_fvu_validation"], parts=("comparisons",),
                        **options).comparisons
        assert len(table) == (2 if options["times"] else 4)
        assert (table["verdict"] == "equivalent").all() and (table["verdict_note"] == "identical outputs").all()
        assert (table["margin"] == 0.0).all() and table["identical"].all()


def simulated_aa(replicates, problems, sets, draws, seed, shared_point_noise):
    """A/A on known noise: both sides share each problem's true value (and, with
    ``shared_point_noise``, each draw's point effect, as repeats on the same drawn points do); each
    side adds its own seed noise. Returns per-problem means and split-half noise, (R, P) each."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 1.0, (replicates, problems, 1))
    point = rng.normal(0.0, 0.3, (replicates, problems, draws)) if shared_point_noise else 0.0
    a = truth + point + rng.normal(0.0, 0.4, (replicates, problems, draws))
    b = truth + point + rng.normal(0.0, 0.4, (replicates, problems, draws))
    codes = np.sort(rng.integers(0, sets, problems))
    return draw_summary(a)[:2], draw_summary(b)[:2], codes


@pytest.mark.parametrize("draws", [2, 4])
@pytest.mark.parametrize("shared_point_noise", [False, True])
@pytest.mark.slow
def test_aa_false_verdicts_and_p_values_stay_within_their_stated_rates(draws, shared_point_noise):
    replicates, problems, sets = 400, 60, 4
    (mean_a, noise_a), (mean_b, noise_b), codes = simulated_aa(replicates, problems, sets, draws, 7 + draws,
                                                               shared_point_noise)
    out = compare_arrays(mean_a, mean_b, noise_a, noise_b, codes, sets, rate=False, n_resamples=400, seed=3)
    calls = [verdict(lo, hi, m)[0] for lo, hi, m in zip(out["ci_low"], out["ci_high"], out["margin"])]
    false = sum(c in ("better", "worse") for c in calls)
    # the verdict's stated rate: at most 5 % false verdicts (the exact binomial test of 5 % does not reject)
    assert stats.binomtest(false, replicates, 0.05, alternative="greater").pvalue > 0.01
    assert calls.count("equivalent") >= 0.8 * replicates  # equal methods read equivalent most of the time
    # the p-value's stated rate: 5 % below 0.05 under the null (two-sided binomial check)
    significant = int((out["p_value"] < 0.05).sum())
    assert stats.binomtest(significant, replicates, 0.05).pvalue > 0.01


@pytest.mark.slow
def test_a_shift_beyond_mde80_is_called_at_least_80_percent_of_the_time():
    replicates, problems, sets = 300, 60, 4
    (mean_a, noise_a), (mean_b, noise_b), codes = simulated_aa(replicates, problems, sets, 2, 11, True)
    probe = compare_arrays(mean_a, mean_b, noise_a, noise_b, codes, sets, rate=False, n_resamples=400, seed=3)
    shift = float(np.median(probe["mde80"]))
    out = compare_arrays(mean_a + shift, mean_b, noise_a, noise_b, codes, sets, rate=False, n_resamples=400, seed=3)
    calls = [verdict(lo, hi, m)[0] for lo, hi, m in zip(out["ci_low"], out["ci_high"], out["margin"])]
    assert calls.count("better") >= 0.7 * replicates and calls.count("worse") == 0


def timed_frame():
    """Two methods whose values do not move between draws, timed differently on each draw."""
    rows = []
    seconds = {"A": ((1.0, 4.0), (1.2, 4.4)), "B": ((0.9, 3.0), (1.0, 3.5))}  # per draw: (budget 1, budget 2)
    for method, by_draw in seconds.items():
        for i in range(10):
            for draw, times in enumerate(by_draw):
                for budget, sec in zip((1.0, 2.0), times):
                    value = -1.0 - 0.1 * i - (0.5 if budget == 2.0 else 0.0) * (1 + 0.1 * i) - (0.2 if method == "B" else 0)
                    rows.append({"method": method, "catalog": "nguyen", "catalog_version": 1, "problem_id": f"p{i}",
                                 "draw": draw, "budget": budget, "seconds": sec, "success": 1.0,
                                 "log10_fvu_validation": value})
    return pd.DataFrame(rows)


def test_the_margin_at_a_time_mark_holds_the_time_axis_noise_of_each_side():
    frame = timed_frame()
    row = analyze(frame, ["log10_fvu_validation"], times=(2.0,), parts=("comparisons",)).comparisons.iloc[0]
    # independently: each half of the draws (here: one draw each) places t = 2 s at its own fraction
    # between the two budgets; every problem moves by (f1 - f2) * (value at budget 2 - at budget 1)
    moved = {}
    for method, (first, second) in {"A": ((1.0, 4.0), (1.2, 4.4)), "B": ((0.9, 3.0), (1.0, 3.5))}.items():
        f1 = np.log(2 / first[0]) / np.log(first[1] / first[0])
        f2 = np.log(2 / second[0]) / np.log(second[1] / second[0])
        slope = -0.5 * (1 + 0.1 * np.arange(10))
        moved[method] = np.mean((f1 - f2) * slope)
    # no draw noise: the null is +-moved_A +- moved_B, whose 95th percentile of |.| is the larger sum
    assert row["margin"] == pytest.approx(abs(moved["A"]) + abs(moved["B"]), rel=1e-5)
    assert row["status_a"] == row["status_b"] == "interpolated"
    # with the time axis supplied (a timing readout) there is no split-half time noise: margin 0
    times = analyze(frame, ["log10_fvu_validation"], times=(), parts=()).time_axis
    given = analyze(frame, ["log10_fvu_validation"], times=(2.0,), parts=("comparisons",), time_axis=times)
    assert given.comparisons.iloc[0]["margin"] == 0.0
    # at a budget, both sides at the same configuration: no time axis, no time noise
    at_budget = analyze(frame, ["log10_fvu_validation"], times=(), compare_at="budget", parts=("comparisons",))
    assert (at_budget.comparisons["margin"] == 0.0).all()
