"""The report from a synthetic long frame: files, links, and numbers equal to srbf.stats.analyze."""

import re

import numpy as np
import pandas as pd
import pytest
from report_helpers import METHODS, SETS, TIMES, long_frame

from srbf.report import build_report, read_table
from srbf.report import markdown_tables as T
from srbf.report.readings import choose_metrics, run_analysis
from srbf.report.data import ReportInputError, label_note, provenance_labels, require_scores
from srbf.report.rounding import format_with
from srbf.stats import analyze

pytestmark = pytest.mark.slow

METRICS = ["nrr_validation", "log10_fvu_validation"]


@pytest.fixture(scope="module")
def report(tmp_path_factory, frame):
    return build_report(frame, tmp_path_factory.mktemp("r") / "report", metrics=METRICS, times=TIMES)


@pytest.fixture(scope="module")
def reference(frame):
    return analyze(frame, METRICS, times=TIMES)


def test_index_references_figures_that_exist(report):
    text = report.index.read_text(encoding="utf-8")
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links, "no figures embedded"
    for link in links:
        assert not link.startswith("/") and link.startswith("figures/") and link.endswith(".png")
        path = report.directory / link
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", link
    names = {p.name for p in (report.directory / "figures").iterdir()}
    assert {"curve_nrr_validation.png", "curve_log10_fvu_validation.png", "verdicts_nrr_validation.png",
            "cd_log10_fvu_validation.png", "cd_nrr_validation.png"} <= names
    assert {f"figures/{n}" for n in names} == set(links)


def test_every_table_is_written(report):
    for name in ("aggregates", "leaderboard", "per_set", "comparisons", "ranks", "time_axis"):
        path = report.directory / "tables" / f"{name}.csv"
        assert path.is_file() and len(read_table(path)) > 0, name


def test_leaderboard_numbers_equal_the_analysis(report, reference):
    board = read_table(report.directory / "tables" / "leaderboard.csv")
    ref = reference.aggregates[reference.aggregates["axis"] == "time"]
    merged = board.merge(ref, on=["time", "method", "metric"], suffixes=("", "_ref"))
    assert len(merged) == len(board) == len(TIMES) * len(METHODS) * len(METRICS)
    for column in ("estimate", "ci_low", "ci_high", "median", "n_problems", "share"):
        np.testing.assert_allclose(merged[column], merged[f"{column}_ref"], rtol=1e-12, equal_nan=True)
    # the rounded numbers are the analysis' numbers rounded by the rule
    for _, row in merged.dropna(subset=["estimate"]).iterrows():
        shown, decimals = format_with(row["estimate_ref"], row["ci_low_ref"], row["ci_high_ref"])
        assert row["shown"] == shown and row["decimals"] == decimals
        assert row["estimate_shown"] == pytest.approx(round(row["estimate_ref"], decimals))


def test_headline_leaderboard_in_index(report):
    text = report.index.read_text(encoding="utf-8")
    assert report.headline == T.Mark("time", 10.0)  # A is max-tested there, B and C interpolated; C n/a at 1 s
    board = read_table(report.directory / "tables" / "leaderboard.csv")
    head = board[board["time"] == 10.0]
    for _, row in head.iterrows():
        assert f"{row['shown']} ({int(row['n_problems'])})" in text
    for method, (_, _, provenance) in METHODS.items():
        assert f"**{method}** ({provenance})" in text
    # three labels among the compared methods: the leaderboard and the paired verdicts carry the footnote
    note = ("Note: differently labelled configurations are compared here. author_blessed (supplied or approved by "
            "the method's authors): A; harness_tuned (chosen by the benchmark's maintainers): C; upstream_default "
            "(the method's released defaults): B. See docs/fairness.md.")
    assert text.split("## Curves")[0].count(note) == 1 and text.split("## Paired verdicts")[1].count(note) == 1
    order = [line.split("**")[1] for line in text.split("## Curves")[0].split("<details>")[0].splitlines()
             if line.startswith("| **")]
    assert order == ["A", "B", "C"]  # best nrr_validation first


def test_comparisons_and_ranks_equal_the_analysis(report, reference):
    comparisons = read_table(report.directory / "tables" / "comparisons.csv")
    merged = comparisons.merge(reference.comparisons, on=["time", "metric", "method_a", "method_b"],
                               suffixes=("", "_ref"))
    assert len(merged) == len(comparisons) == len(reference.comparisons)
    for column in ("delta", "ci_low", "ci_high", "margin", "mde80", "p_value", "p_adjusted"):
        np.testing.assert_allclose(merged[column], merged[f"{column}_ref"], rtol=1e-12, equal_nan=True)
    assert (merged["verdict"] == merged["verdict_ref"]).all()
    ranks = read_table(report.directory / "tables" / "ranks.csv")
    merged = ranks.merge(reference.ranks, on=["time", "metric", "method"], suffixes=("", "_ref"))
    assert len(merged) == len(ranks) == len(reference.ranks)
    for column in ("mean_rank", "cd", "p_value", "friedman_statistic"):
        np.testing.assert_allclose(merged[column], merged[f"{column}_ref"], rtol=1e-12)


def test_per_set_numbers_equal_the_analysis(report, reference):
    table = read_table(report.directory / "tables" / "per_set.csv")
    ref = reference.per_set[reference.per_set["budget"] == 16.0]  # every method's largest complete budget
    merged = table.merge(ref, on=["method", "budget", "metric", "catalog"], suffixes=("", "_ref"))
    assert len(merged) == len(table) == len(METHODS) * len(SETS) * len(METRICS)
    np.testing.assert_allclose(merged["mean"], merged["mean_ref"], rtol=1e-12)
    assert (merged["n_problems"] == merged["n_problems_ref"]).all()
    assert (table["ci_low"] <= table["mean"] + 1e-12).all() and (table["mean"] <= table["ci_high"] + 1e-12).all()


def test_headline_metrics_by_default(frame):
    assert choose_metrics(frame) == ["nrr_validation", "srr_structure", "log10_fvu_validation",
                                     "token_count_mismatch", "success"]
    with pytest.raises(ReportInputError, match="metrics: .*nrr_validation"):
        choose_metrics(frame, ["no_such_metric"])
    assert provenance_labels(frame) == {m: p for m, (_, _, p) in METHODS.items()}


def test_low_share_and_incomplete_values_are_flagged():
    frame = long_frame()
    failing = (frame["method"] == "C") & (frame["catalog"] == "alpha")  # 12 of 30 problems
    frame.loc[failing, ["success", "nrr_validation", "srr_structure"]] = 0.0
    frame.loc[failing, ["log10_fvu_validation", "token_count_mismatch", "seconds"]] = np.nan
    missing = (frame["method"] == "B") & (frame["budget"] == 16.0) & (frame["problem_id"] == "p00")
    frame = frame[~missing]  # B has no finished draw of three problems at its largest budget
    analysis, marks, headline = run_analysis(frame, METRICS, times=TIMES)
    board = T.leaderboard(analysis.aggregates, METRICS, headline, provenance_labels(frame))
    text = T.leaderboard_markdown(board, METRICS)
    row_c = next(line for line in text.splitlines() if line.startswith("| **C**"))
    row_b = next(line for line in text.splitlines() if line.startswith("| **B**"))
    assert "†" in row_c.split("|")[4]  # log10_fvu_validation over 18 of 30 problems
    assert "†" not in row_c.split("|")[3]  # the rate counts every problem
    assert "incomplete (27/30)" in row_b
    shown = T.leaderboard_markdown(board, METRICS, show_incomplete=True)
    assert "§" in next(line for line in shown.splitlines() if line.startswith("| **B**"))


def test_without_timings_verdicts_and_ranks_are_issued_at_budgets():
    frame = long_frame().assign(seconds=np.nan)
    analysis, marks, headline = run_analysis(frame, ["nrr_validation"], times=TIMES)
    assert [m.axis for m in marks] == ["budget"] * 3 and headline == T.Mark("budget", 16.0)
    assert set(analysis.comparisons["axis"]) == {"budget"} and set(analysis.ranks["axis"]) == {"budget"}


def test_budget_fallback_in_the_cli(monkeypatch, capsys):
    import json

    import srbf.report.data
    from srbf.cli import main

    frame = long_frame().assign(seconds=np.nan)
    monkeypatch.setattr(srbf.report.data, "load_long_frame", lambda results=None, **options: frame)
    assert main(["compare", "A", "B", "--metric", "nrr_validation", "--json"]) == 0  # no times: the largest budgets
    out, err = capsys.readouterr()
    assert [r["axis"] for r in json.loads(out)] == ["max_budget"]
    assert "reading at each method's largest budget (chosen from the data: some method has no measured time)" in err
    assert main(["compare", "A", "B", "--metric", "nrr_validation", "--json", "--at-seconds", "1"]) == 0
    out, err = capsys.readouterr()
    assert [(r["axis"], r["budget"]) for r in json.loads(out)] == [("budget", 1.0), ("budget", 4.0), ("budget", 16.0)]
    assert "read at each budget instead" in err


def test_bootstrap_statistic():
    analysis, _, _ = run_analysis(long_frame(), ["nrr_validation"], times=TIMES, statistic="bootstrap",
                                  n_resamples=200)
    assert set(analysis.aggregates["statistic"]) == {"bootstrap"}


def test_empty_input_is_refused():
    with pytest.raises(ReportInputError, match=r"no scored predictions in DIR: run `srbf score` first"):
        require_scores(pd.DataFrame(), "DIR")
    only_keys = long_frame()[["method", "catalog", "catalog_version", "problem_id", "draw", "budget", "seconds"]]
    with pytest.raises(ReportInputError, match="no scored predictions"):
        build_report(only_keys, "unused")


def test_verdicts_when_every_pair_is_na(frame):
    """One method slower than every mark and no third one: each pair is n/a, and the stats table
    has no Delta column at all; the verdict table still has one, empty."""
    two = frame[frame["method"] != "B"].copy()
    two.loc[two["method"] == "C", "seconds"] = 5000.0
    analysis, marks, _ = run_analysis(two, ["nrr_validation"], times=TIMES, n_resamples=50)
    assert "delta" not in analysis.comparisons  # the case this guards
    table = T.verdicts(analysis.comparisons, ["nrr_validation"], marks)
    assert len(table) == len(marks) and (table["verdict"] == "n/a").all()
    assert table["delta"].isna().all() and (table["delta_shown"] == "—").all()
    mark = marks[0]
    assert "⬜ n/a" in T.verdict_markdown(table, "nrr_validation", mark, ["A", "C"])


def test_label_note_only_for_different_labels():
    assert label_note({"a": "upstream_default", "b": "upstream_default"}) == ""
    assert label_note({"a": "upstream_default", "b": "author_blessed", "c": "upstream_default"}, ["a", "c"]) == ""
    note = label_note({"a": "upstream_default", "b": "author_blessed"})
    assert "author_blessed (supplied or approved by the method's authors): b" in note
    assert "upstream_default (the method's released defaults): a" in note
