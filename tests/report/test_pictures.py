"""The accuracy-size Pareto figure and the per-problem distributions (srbf.report.pictures), on
small hand-made frames whose every value is worked out here independently: draws averaged by the
metric's rule, each method at its largest complete budget, medians, the bootstrap interval of the
median replayed resample by resample, the front from pairwise dominance, clipped and missing
counts; and the edge cases (one method, a method whose every fit failed, a reference without a
formula, constant sizes, -inf / +inf / NaN values)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from srbf.report import build_report
from srbf.report.build import read_table
from srbf.report.markdown_tables import largest_complete_budgets
from srbf.report.pictures import (LOG10_FVU_CEILING, R2_FLOOR, distribution_boxes, distribution_points, front,
                                  pareto_table)
from srbf.stats import analyze

PROBLEMS = [f"p{i}" for i in range(6)]


def _row(method, problem, draw, budget, r2, size, success=1.0, catalog="nguyen"):
    log_fvu = math.log10(1 - r2) if r2 is not None and r2 < 1 else (None if r2 is None else -15.65)
    if r2 == -math.inf:
        log_fvu = math.inf
    return {"method": method, "catalog": catalog, "catalog_version": 1, "problem_id": problem, "draw": draw,
            "budget": budget, "seconds": 1.0, "success": success, "nrr_validation": 0.0,
            "r2_validation": np.nan if r2 is None else r2,
            "log10_fvu_validation": np.nan if log_fvu is None else log_fvu,
            "token_count_prediction": np.nan if size is None else size}


def hand_frame() -> pd.DataFrame:
    """Three methods on six problems, two draws, budgets 1 and 2.

    good: R² 0.9 + problem/100 on draw 0 and 0.92 + problem/100 on draw 1, size 20 + problem;
          at budget 1 it is worse (R² 0.5) and shorter (size 3).
    short: R² 0.6 and size 5 everywhere, except p0 where draw 0 blew up (R² -inf, kept out of the
          mean by R²'s rule, so p0 reads draw 1's 0.6) and p1 where both draws blew up (-inf stays).
    failing: every fit failed (success 0, no R², no size).
    """
    rows = []
    for i, p in enumerate(PROBLEMS):
        for draw in (0, 1):
            rows.append(_row("good", p, draw, 2.0, 0.9 + i / 100 + 0.02 * draw, 20 + i))
            rows.append(_row("good", p, draw, 1.0, 0.5, 3))
            r2 = -math.inf if (p == "p0" and draw == 0) or p == "p1" else 0.6
            rows.append(_row("short", p, draw, 2.0, r2, 5))
            rows.append(_row("failing", p, draw, 2.0, None, None, success=0.0))
    return pd.DataFrame(rows)


def _budgets(frame):
    return largest_complete_budgets(analyze(frame, ["nrr_validation"], times=(), parts=("aggregates",)).aggregates)


def _replayed_interval(values, seed=0, n_resamples=1000):
    """The percentile interval of the median, one resample at a time (the same stream of indices)."""
    rng = np.random.default_rng(seed)
    medians = [statistics.median(values[j] for j in rng.integers(0, len(values), size=len(values)))
               for _ in range(n_resamples)]
    return tuple(np.percentile(medians, [2.5, 97.5]))


def test_pareto_values_match_an_independent_computation():
    frame = hand_frame()
    budgets = _budgets(frame)
    assert budgets == {"failing": 2.0, "good": 2.0, "short": 2.0}
    table = pareto_table(frame, budgets, seed=3, n_resamples=400).set_index("method")
    good_r2 = [0.91 + i / 100 for i in range(6)]  # the two draws averaged
    assert table.loc["good", "accuracy"] == pytest.approx(statistics.median(good_r2))
    assert (table.loc["good", "accuracy_low"], table.loc["good", "accuracy_high"]) == pytest.approx(
        _replayed_interval(good_r2, seed=3, n_resamples=400))
    sizes = [20 + i for i in range(6)]
    assert table.loc["good", "size"] == statistics.median(sizes)
    assert (table.loc["good", "size_low"], table.loc["good", "size_high"]) == pytest.approx(
        _replayed_interval(sizes, seed=3, n_resamples=400))
    # short: p1 is -inf (both draws blew up), counted at the floor; p0 is draw 1's 0.6
    assert table.loc["short", "n_clipped"] == 1
    assert table.loc["short", "accuracy"] == pytest.approx(statistics.median([0.6, R2_FLOOR, 0.6, 0.6, 0.6, 0.6]))
    assert table.loc["short", "size"] == 5 and table.loc["short", "size_low"] == 5 == table.loc["short", "size_high"]
    # both are on the front: good is more accurate, short is shorter
    assert table.loc["good", "on_front"] and table.loc["short", "on_front"]
    # every fit failed: listed, not placed, nothing made up
    failing = table.loc["failing"]
    assert not failing["placed"] and not failing["on_front"] and failing["note"] == "no usable fit"
    assert failing["n_accuracy"] == 0 and np.isnan(failing["accuracy"]) and failing["n_universe"] == 6
    assert failing["low_share"]


def test_the_budget_read_is_each_methods_largest_complete_one():
    frame = hand_frame()
    frame = frame[~((frame["method"] == "good") & (frame["budget"] == 2.0) & (frame["problem_id"] == "p5"))]
    budgets = _budgets(frame)
    assert budgets["good"] == 1.0  # budget 2 lacks p5: not complete
    table = pareto_table(frame, budgets).set_index("method")
    assert table.loc["good", "budget"] == 1.0
    assert table.loc["good", "accuracy"] == pytest.approx(0.5) and table.loc["good", "size"] == 3
    # good (0.5 at 3 tokens) is shorter, short (0.6 at 5) more accurate: neither dominates the other
    assert table.loc["good", "on_front"] and table.loc["short", "on_front"]


@pytest.mark.parametrize(("accuracy", "size", "expected"), [
    ([0.9, 0.8, 0.95, 0.7], [10, 5, 30, 6], [True, True, True, False]),  # 0.7 at 6 is dominated by 0.8 at 5
    ([0.9, 0.9], [10, 10], [True, True]),  # equal points: both on the front
    ([0.9, 0.9], [10, 12], [True, False]),  # equal accuracy, longer: dominated
    ([0.5], [3], [True]),  # one method
])
def test_front_is_pairwise_non_dominance(accuracy, size, expected):
    a, s = np.array(accuracy, float), np.array(size, float)
    assert front(a, s, np.ones(len(a), bool)).tolist() == expected
    brute = [not any(a[j] >= a[i] and s[j] <= s[i] and (a[j] > a[i] or s[j] < s[i]) for j in range(len(a)))
             for i in range(len(a))]
    assert brute == expected


def test_one_method_and_constant_sizes():
    frame = hand_frame()
    only = frame[frame["method"] == "short"]
    table = pareto_table(only, {"short": 2.0})
    assert table["method"].tolist() == ["short"] and table["on_front"].tolist() == [True]
    assert table["size_low"].iloc[0] == table["size_high"].iloc[0] == 5  # constant sizes: a zero-width interval


def test_a_reference_without_formula_size_is_listed_not_placed():
    frame = hand_frame()
    frame.loc[frame["method"] == "short", "token_count_prediction"] = np.nan
    table = pareto_table(frame, _budgets(frame)).set_index("method")
    assert not table.loc["short", "placed"] and table.loc["short", "note"] == "no formula size"
    assert table.loc["short", "n_accuracy"] == 6  # its R² is still counted
    assert table.loc["good", "on_front"]


def test_distributions_clip_count_and_keep_one_value_per_problem():
    frame = hand_frame()
    frame.loc[(frame["method"] == "good") & (frame["problem_id"] == "p3"), "log10_fvu_validation"] = 7.0  # FVU 1e7
    points = distribution_points(frame, _budgets(frame))
    assert len(points) == 2 * 3 * 6  # two metrics, three methods, six problems
    r2 = points[points["metric"] == "r2_validation"].set_index(["method", "problem_id"])
    assert r2.loc[("good", "p2"), "value"] == pytest.approx(0.93)
    assert r2.loc[("short", "p0"), "value"] == pytest.approx(0.6)  # the -inf draw left out of the mean
    assert r2.loc[("short", "p1"), "value"] == -math.inf and r2.loc[("short", "p1"), "shown"] == R2_FLOOR
    assert r2.loc[("short", "p1"), "clipped"] == "floor"
    assert r2.loc[("failing", "p1"), "shown"] != r2.loc[("failing", "p1"), "shown"]  # NaN: missing
    fvu = points[points["metric"] == "log10_fvu_validation"].set_index(["method", "problem_id"])
    assert fvu.loc[("short", "p1"), "value"] == math.inf and fvu.loc[("short", "p1"), "shown"] == LOG10_FVU_CEILING
    assert fvu.loc[("good", "p3"), "shown"] == LOG10_FVU_CEILING and fvu.loc[("good", "p3"), "clipped"] == "ceiling"
    assert points["jitter"].between(-0.25, 0.25).all()

    boxes = distribution_boxes(points).set_index(["metric", "method"])
    short = boxes.loc[("r2_validation", "short")]
    assert (short["n"], short["n_clipped"], short["n_missing"], short["n_universe"]) == (6, 1, 0, 6)
    values = sorted([0.6] * 5 + [R2_FLOOR])
    assert short["median"] == pytest.approx(np.percentile(values, 50)) and short["q1"] == pytest.approx(0.6)
    assert short["whisker_low"] == pytest.approx(0.6)  # the floor value is beyond 1.5 IQR (IQR 0): not reached
    failing = boxes.loc[("r2_validation", "failing")]
    assert (failing["n"], failing["n_missing"]) == (0, 6) and np.isnan(failing["median"])
    good = boxes.loc[("log10_fvu_validation", "good")]
    assert good["n_clipped"] == 1


def test_the_report_writes_both_figures_their_tables_and_captions(tmp_path):
    frame = hand_frame()
    report = build_report(frame, tmp_path / "r", metrics=["nrr_validation"], at_budget="max", n_resamples=200)
    names = {p.name for p in report.figures}
    assert {"pareto.png", "distributions.png"} <= names
    for name in ("pareto", "distributions", "distribution_boxes"):
        assert (tmp_path / "r" / "tables" / f"{name}.csv").is_file()
    written = read_table(tmp_path / "r" / "tables" / "pareto.csv").set_index("method")
    assert written.loc["good", "accuracy"] == pytest.approx(statistics.median([0.91 + i / 100 for i in range(6)]))
    text = report.index.read_text()
    assert "## Accuracy and size" in text and "figures/pareto.png" in text and "figures/distributions.png" in text
    assert "Front: good, short." in text and "Not placed: failing (no usable fit)." in text
    assert "R²: 12 values of 18, 1 below the floor -1 drawn at it (◇), 6 missing" in text


def test_a_frame_without_r2_or_sizes_says_so_instead_of_drawing(tmp_path):
    frame = hand_frame().drop(columns=["r2_validation", "token_count_prediction", "log10_fvu_validation"])
    report = build_report(frame, tmp_path / "r", metrics=["nrr_validation"], n_resamples=100)
    assert not {"pareto.png", "distributions.png"} & {p.name for p in report.figures}
    text = report.index.read_text()
    assert "_No Pareto figure" in text and "_No distributions figure" in text


@pytest.mark.parametrize("methods", [["good"], ["failing"]])
def test_a_report_of_one_method_draws_both_pictures(tmp_path, methods):
    frame = hand_frame()
    frame = frame[frame["method"].isin(methods)]
    report = build_report(frame, tmp_path / "r", metrics=["nrr_validation"], at_budget="max", n_resamples=100)
    assert {"pareto.png", "distributions.png"} <= {p.name for p in report.figures}
    table = read_table(tmp_path / "r" / "tables" / "pareto.csv")
    assert table["method"].tolist() == methods
    assert table["on_front"].tolist() == [methods == ["good"]]
    text = report.index.read_text()
    assert ("Front: good." in text) if methods == ["good"] else ("Front: none." in text and "6 missing" in text)
