"""The frame-level entry point, checked against the per-function API applied by hand with pandas."""

import math

import numpy as np
import pandas as pd
import pytest

from srbf.stats import analyze, combine_sets, friedman_nemenyi, holm, interpolate_at_time, paired_comparison
from srbf.stats.median import weighted_median
from srbf.stats.multiple import benjamini_hochberg

SIZES = {"alpha": 6, "beta": 4, "gamma": 1}
METHODS = {"A": (0.8, 0.2), "B": (0.0, 1.0), "C": (-0.5, 20.0)}  # skill, seconds at budget 1
BUDGETS = (1.0, 2.0, 4.0)


def long_frame(seed=0, draws=2):
    rng = np.random.default_rng(seed)
    rows = []
    for method, (skill, base) in METHODS.items():
        for catalog, size in SIZES.items():
            for i in range(size):
                difficulty = rng.normal(0, 1)
                for budget in BUDGETS:
                    for draw in range(draws):
                        latent = skill + 0.5 * np.log2(budget) - difficulty + rng.normal(0, 0.5)
                        success = float(rng.random() < 0.85)
                        log_fvu = -2 - 2 * latent if rng.random() > 0.08 else math.inf
                        rows.append({
                            "method": method, "catalog": catalog, "catalog_version": 1, "problem_id": f"p{i:02d}",
                            "draw": draw, "budget": budget,
                            "seconds": base * budget * math.exp(rng.normal(0, 0.1)) if success else np.nan,
                            "success": success,
                            "nrr_validation": float(latent > 0.5) if success else 0.0,
                            "log10_fvu_validation": log_fvu if success else np.nan,
                            "token_count_ratio": math.exp(rng.normal(0, 0.3)) if success else np.nan,
                        })
    return pd.DataFrame(rows)


FRAME = long_frame()
METRICS = ["success", "nrr_validation", "log10_fvu_validation", "token_count_ratio"]


@pytest.fixture(scope="module")
def analysis():
    return analyze(FRAME, METRICS, times=(0.5, 2.0, 100.0), confirmatory=[("A", "B")])


def per_problem(frame, metric, method, budget, mean_omits_inf=True):
    """Independent oracle: the judge's failure rules and draw averaging, with plain pandas."""
    rows = frame[(frame.method == method) & (frame.budget == budget)].copy()
    x = rows[metric].astype(float)
    if metric in ("success", "nrr_validation"):
        x = x.where(rows.success == 1, 0.0)
    if mean_omits_inf:
        x = x.replace([np.inf, -np.inf], np.nan)
    rows["x"] = x
    return rows.groupby(["catalog", "problem_id"])["x"].mean()


def by_set(series):
    return {c: g.dropna().to_numpy() for c, g in series.groupby(level=0)}


@pytest.mark.parametrize("metric,scale", [("success", "logit"), ("nrr_validation", "logit"),
                                          ("log10_fvu_validation", "identity"), ("token_count_ratio", "log")])
def test_budget_aggregates_equal_combine_sets_on_pandas_draw_means(analysis, metric, scale):
    agg = analysis.aggregates
    for method in METHODS:
        for budget in BUDGETS:
            row = agg[(agg.axis == "budget") & (agg.method == method) & (agg.budget == budget) & (agg.metric == metric)].iloc[0]
            values = per_problem(FRAME, metric, method, budget)
            if scale == "log":
                logs = per_problem(FRAME.assign(**{metric: np.log(FRAME[metric])}), metric, method, budget)
                values = np.exp(logs)  # geometric mean over draws, then over problems
            expected = combine_sets(by_set(values), scale=scale)
            for key in ("estimate", "ci_low", "ci_high", "n_problems", "n_sets"):
                assert row[key] == pytest.approx(expected[key], rel=1e-9, nan_ok=True), (method, budget, key)
            assert row["share"] == pytest.approx(expected["n_problems"] / sum(SIZES.values()))


def test_median_counts_infinite_fits_as_worst_with_set_weights(analysis):
    agg = analysis.aggregates
    metric = "log10_fvu_validation"
    for method in METHODS:
        row = agg[(agg.axis == "budget") & (agg.method == method) & (agg.budget == 1.0) & (agg.metric == metric)].iloc[0]
        finite = per_problem(FRAME, metric, method, 1.0)
        with_inf = per_problem(FRAME, metric, method, 1.0, mean_omits_inf=False)
        values = finite.where(finite.notna(), with_inf)  # +inf only where every usable draw blew up
        weights = combine_sets(by_set(finite))["weights"]
        present = values.dropna()
        counts = present.groupby(level=0).size()
        w = [weights.get(c, np.mean(list(weights.values()))) / counts[c] for c in present.index.get_level_values(0)]
        assert row["median"] == pytest.approx(weighted_median(present.to_numpy(), np.array(w)))


def test_time_axis_is_the_median_seconds_of_usable_predictions(analysis):
    expected = FRAME[FRAME.success == 1].groupby(["method", "budget"])["seconds"].median()
    got = analysis.time_axis.set_index(["method", "budget"])["seconds"]
    assert got.to_numpy() == pytest.approx(expected.loc[got.index].to_numpy())


def test_time_marks_interpolate_each_problem_and_flag_n_a_and_max_tested(analysis):
    agg = analysis.aggregates
    times = analysis.time_axis.pivot(index="method", columns="budget", values="seconds")
    statuses = agg[(agg.axis == "time") & (agg.metric == "success")].set_index(["time", "method"])["status"]
    assert statuses[(0.5, "C")] == "n/a" and statuses[(100.0, "A")] == "max_tested"
    assert statuses[(2.0, "B")] == "interpolated"
    columns = [per_problem(FRAME, "log10_fvu_validation", "B", b) for b in BUDGETS]
    at, status = interpolate_at_time(times.loc["B"].to_numpy(), np.column_stack(columns), 2.0)
    expected = combine_sets(by_set(pd.Series(at, index=columns[0].index)))
    row = agg[(agg.axis == "time") & (agg.time == 2.0) & (agg.method == "B") & (agg.metric == "log10_fvu_validation")].iloc[0]
    assert row["estimate"] == pytest.approx(expected["estimate"], rel=1e-9)
    assert np.isnan(agg[(agg.axis == "time") & (agg.time == 0.5) & (agg.method == "C")]["estimate"]).all()


def test_comparisons_match_paired_comparison_on_interpolated_draws(analysis):
    times = analysis.time_axis.pivot(index="method", columns="budget", values="seconds")
    comp = analysis.comparisons
    metric = "nrr_validation"
    row = comp[(comp.time == 2.0) & (comp.metric == metric) & (comp.method_a == "A") & (comp.method_b == "B")].iloc[0]

    def draws_at(method):
        table = FRAME[FRAME.method == method].assign(x=lambda f: f[metric].where(f.success == 1, 0.0))
        cube = table.pivot_table(index=["catalog", "problem_id", "draw"], columns="budget", values="x")
        values, _ = interpolate_at_time(times.loc[method, list(BUDGETS)].to_numpy(), cube[list(BUDGETS)].to_numpy(), 2.0)
        series = pd.Series(values, index=cube.index)
        return {key: g.to_numpy() for key, g in series.groupby(level=[0, 1])}

    status = analysis.aggregates.set_index(["axis", "time", "method", "metric"])["status"]
    assert status[("time", 2.0, "A", "success")] == "max_tested"
    a, b = draws_at("A"), draws_at("B")
    assert all(np.isfinite(v).all() and v.size == 2 for v in list(a.values()) + list(b.values()))
    # interpolating each draw (here) or each problem's draw mean and split half (the frame) agree
    expected = paired_comparison(a, b, rate=True, max_tested=(True, False))
    for key in ("delta", "ci_low", "ci_high", "p_value", "n_pairs", "wins_a", "wins_b"):
        assert row[key] == pytest.approx(expected[key], rel=1e-6), key
    assert row["test"] == "mcnemar_exact" and row["status_a"] == "max_tested" and row["confirmatory"]
    # the margin also holds the time axis's own noise (below); with the times given, it has none
    given = analyze(FRAME, [metric], times=(2.0,), time_axis=analysis.time_axis, confirmatory=[("A", "B")]).comparisons
    plain = given[(given.method_a == "A") & (given.method_b == "B")].iloc[0]
    for key in ("delta", "ci_low", "ci_high", "margin", "p_value", "mde80"):
        assert plain[key] == pytest.approx(expected[key], rel=1e-6), key
    assert plain["verdict"] == expected["verdict"] and plain["verdict_note"] == expected["verdict_note"]


def test_comparisons_with_an_n_a_side_have_no_statistics(analysis):
    comp = analysis.comparisons
    rows = comp[(comp.time == 0.5) & ((comp.method_a == "C") | (comp.method_b == "C"))]
    assert (rows.verdict == "n/a").all() and rows.p_value.isna().all()
    assert (comp[comp.metric == "nrr_validation"].test == "mcnemar_exact").all()
    assert "token_count_ratio" not in set(comp.metric)  # no direction: no verdicts


def test_corrections_holm_within_confirmatory_bh_for_the_rest(analysis):
    comp = analysis.comparisons
    for metric, group in comp.groupby("metric"):
        confirmatory = group[group.confirmatory]
        assert set(confirmatory.method_a + confirmatory.method_b) == {"AB"}
        assert (confirmatory.correction == "holm").all() and (confirmatory.family == f"confirmatory:{metric}").all()
        assert np.allclose(confirmatory.p_adjusted, holm(confirmatory.p_value), equal_nan=True)
        rest = group[~group.confirmatory]
        assert (rest.correction == "benjamini-hochberg").all()
        assert np.allclose(rest.p_adjusted, benjamini_hochberg(rest.p_value), equal_nan=True)


def test_ranks_match_friedman_nemenyi_on_the_interpolated_matrix(analysis):
    ranks = analysis.ranks
    at = ranks[(ranks.time == 100.0) & (ranks.metric == "nrr_validation")]
    assert set(at.method) == {"A", "B", "C"} and (at.population == "all problems").all()
    matrix = np.column_stack([per_problem(FRAME, "nrr_validation", m, 4.0).to_numpy() for m in ("A", "B", "C")])
    expected = friedman_nemenyi(matrix)
    assert at.sort_values("method").mean_rank.to_numpy() == pytest.approx(expected["mean_ranks"])
    assert at.p_value.iloc[0] == pytest.approx(expected["p_value"])
    assert at.cd.iloc[0] == pytest.approx(expected["cd"])
    assert set(ranks[ranks.time == 2.0].method) == {"A", "B"}  # C cannot run within 2 s
    assert ranks[ranks.time == 0.5].empty  # only A runs within 0.5 s: nothing to rank


def test_incomplete_method_is_flagged_and_share_drops():
    frame = FRAME[~((FRAME.method == "C") & (FRAME.budget == 4.0) & (FRAME.catalog == "alpha") & (FRAME.problem_id == "p00"))]
    agg = analyze(frame, ["success"], times=()).aggregates
    row = agg[(agg.method == "C") & (agg.budget == 4.0)].iloc[0]
    assert not row.complete and row.n_problems == 10 and row.share == pytest.approx(10 / 11)
    assert agg[(agg.method == "A")].complete.all()


def test_low_share_flag_for_diagnostics():
    frame = FRAME.copy()
    frame.loc[(frame.method == "B") & (frame.catalog == "alpha"), "success"] = 0.0
    agg = analyze(frame, ["log10_fvu_validation"], times=()).aggregates
    assert agg[agg.method == "B"].low_share.all() and not agg[agg.method == "A"].low_share.any()


def test_placeholders_mixed_versions_and_duplicates():
    frame = FRAME.assign(placeholder=False)
    frame.loc[frame.index[:5], "placeholder"] = True
    assert analyze(frame, ["success"], times=()).aggregates.n_problems.min() <= 11
    mixed = FRAME.copy()
    mixed.loc[(mixed.method == "B") & (mixed.catalog == "beta"), "catalog_version"] = 2
    with pytest.raises(ValueError, match="different catalog versions"):
        analyze(mixed, ["success"])
    with pytest.raises(ValueError, match="share the key"):
        analyze(pd.concat([FRAME, FRAME.iloc[:1]]), ["success"])
    with pytest.raises(ValueError, match="key column"):
        analyze(FRAME.drop(columns="draw"), ["success"])


def test_bootstrap_alternative_and_budget_comparisons():
    out = analyze(FRAME, ["nrr_validation"], times=(), statistic="bootstrap", compare_at="budget")
    agg = out.aggregates
    assert (agg.statistic == "bootstrap").all() and agg.tau2.isna().all()
    assert ((agg.ci_low <= agg.estimate) & (agg.estimate <= agg.ci_high)).all()
    assert set(out.comparisons.budget) == set(BUDGETS) and set(out.ranks.budget) == set(BUDGETS)


@pytest.mark.slow
def test_repeats_are_runs_averaged_per_formula_like_draws(analysis):
    """Two repeats on one draw analyse exactly as two draws; a repeat column of zeros changes nothing."""
    repeats = FRAME.assign(repeat=FRAME["draw"], draw=0)
    pd.testing.assert_frame_equal(analyze(repeats, METRICS, times=(0.5, 2.0, 100.0)).aggregates, analysis.aggregates)
    zeros = analyze(FRAME.assign(repeat=0), ["success"], times=()).aggregates
    pd.testing.assert_frame_equal(zeros, analyze(FRAME, ["success"], times=()).aggregates)
    with pytest.raises(ValueError, match="share the key"):
        analyze(pd.concat([repeats, repeats.iloc[:1]]), ["success"])
