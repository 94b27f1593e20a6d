"""srbf analyze / compare / ranks: JSON equal to the stats functions, tables, and one-line errors."""

import json

import numpy as np
import pytest
from report_helpers import TIMES, long_frame, run_cli, serve_frame

from srbf.stats import analyze, friedman_nemenyi
from srbf.stats.rules import LOG10_EPS64

FRAME = long_frame()
_FAILED = ((FRAME["method"] == "C") & (FRAME["budget"] == 16.0) & (FRAME["catalog"] == "alpha")
           & (FRAME["problem_id"] == "p00"))
FRAME.loc[_FAILED, ["success", "nrr_validation", "srr_structure"]] = 0.0  # no usable draw: ranks last
FRAME.loc[_FAILED, ["log10_fvu_validation", "token_count_mismatch", "seconds"]] = np.nan


@pytest.fixture
def scored(monkeypatch):
    serve_frame(monkeypatch, FRAME)


run = run_cli


def reference_row(metric, t, a, b):
    comparisons = analyze(FRAME, [metric], times=TIMES).comparisons
    pair = (comparisons["method_a"] == a) & (comparisons["method_b"] == b)
    return comparisons[(comparisons["time"] == t) & pair].iloc[0]


@pytest.mark.slow
def test_compare_json_matches_analyze(scored, capsys):
    marks = [arg for t in (1, 10, 100, 1000) for arg in ("--at-seconds", str(t))]
    code, out, _ = run(capsys, "compare", "A", "B", "--metric", "nrr_validation", "--json", *marks)
    assert code == 0
    records = json.loads(out)
    assert [(r["metric"], r["time"]) for r in records] == [("nrr_validation", 1.0), ("nrr_validation", 10.0),
                                                           ("nrr_validation", 100.0), ("nrr_validation", 1000.0)]
    ref = analyze(FRAME, ["nrr_validation"]).comparisons  # the declared marks, every method analysed
    for record in records:
        row = ref[(ref["time"] == record["time"]) & (ref["method_a"] == "A") & (ref["method_b"] == "B")].iloc[0]
        assert record["verdict"] == row["verdict"]
        for key in ("delta", "ci_low", "ci_high", "margin", "mde80", "p_value", "p_adjusted"):
            assert record[key] == pytest.approx(row[key], rel=1e-12)
        assert record["n_pairs"] == row["n_pairs"]


def test_compare_is_oriented_from_the_first_method(scored, capsys):
    code, out, _ = run(capsys, "compare", "C", "A", "--metric", "log10_fvu_validation", "--at-seconds", "10", "--json")
    assert code == 0
    (record,) = json.loads(out)
    row = reference_row("log10_fvu_validation", 10.0, "A", "C")
    assert (record["method_a"], record["method_b"]) == ("C", "A")
    assert record["delta"] == pytest.approx(-row["delta"], rel=1e-12)
    assert record["ci_low"] == pytest.approx(-row["ci_high"], rel=1e-12)
    assert record["ci_high"] == pytest.approx(-row["ci_low"], rel=1e-12)
    assert {row["verdict"], record["verdict"]} == {"better", "worse"}
    assert (record["status_a"], record["status_b"]) == (row["status_b"], row["status_a"])


@pytest.mark.slow
def test_compare_table(scored, capsys):
    code, out, _ = run(capsys, "compare", "A", "B", "--at-seconds", "1", "--at-seconds", "10")
    assert code == 0
    assert "Δ = A (author_blessed) − B (upstream_default) [95 %]" in out and "nrr_validation" in out
    assert "srr_structure" in out and "success" in out and "token_count_mismatch" in out
    assert out.rstrip().splitlines()[-1] == (
        "Note: differently labelled configurations are compared here. author_blessed (supplied or approved by the "
        "method's authors): A; upstream_default (the method's released defaults): B. See docs/fairness.md.")


def test_ranks_json_at_a_budget_equals_friedman_nemenyi(scored, capsys):
    code, out, _ = run(capsys, "ranks", "--metric", "log10_fvu_validation", "--budget", "16", "--json")
    assert code == 0
    result = json.loads(out)
    (mark,) = result["marks"]
    # the per-problem values by hand: draws averaged (failed draws have no value), floored; none -> failure
    rows = FRAME[FRAME["budget"] == 16.0].assign(v=FRAME["log10_fvu_validation"].clip(lower=LOG10_EPS64))
    matrix = rows.groupby(["catalog", "problem_id", "method"])["v"].mean().unstack("method")[["A", "B", "C"]]
    assert matrix.shape == (30, 3) and matrix.isna().sum().sum() == 1  # C on alpha/p00
    expected = friedman_nemenyi(matrix.to_numpy(), higher_is_better=False)
    ranks = {m["method"]: m["mean_rank"] for m in mark["methods"]}
    assert [ranks[m] for m in "ABC"] == pytest.approx(list(expected["mean_ranks"]), rel=1e-12)
    assert mark["friedman_statistic"] == pytest.approx(expected["statistic"], rel=1e-12)
    assert mark["cd"] == pytest.approx(expected["cd"], rel=1e-12)
    assert mark["significant"] == expected["significant"]
    assert mark["n_problems"] == 30 and mark["budget"] == 16.0


def test_ranks_json_at_times_matches_analyze(scored, capsys):
    code, out, _ = run(capsys, "ranks", "--at-seconds", "10", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["metric"] == "log10_fvu_validation"
    ref = analyze(FRAME, ["log10_fvu_validation"], times=[10.0]).ranks
    for m in result["marks"][0]["methods"]:
        row = ref[ref["method"] == m["method"]].iloc[0]
        assert m["mean_rank"] == pytest.approx(row["mean_rank"], rel=1e-12)
        assert m["groups"] == row["groups"] and m["status"] == row["status"]


def test_ranks_table(scored, capsys):
    code, out, _ = run(capsys, "ranks", "--metric", "nrr_validation", "--at-seconds", "10")
    assert code == 0
    assert "nrr_validation at 10 s: Friedman" in out and "mean rank" in out
    assert out.index(" A (author_blessed) ") < out.index(" B (upstream_default) ") < out.index(" C (")
    assert "Note: differently labelled configurations are compared here." in out


@pytest.mark.slow
def test_analyze_writes_the_report(scored, capsys, tmp_path):
    out_dir = tmp_path / "rep"
    code, out, _ = run(capsys, "analyze", "-o", str(out_dir), "--metric", "srr_structure", "--at-seconds", "10")
    assert code == 0
    assert (out_dir / "index.md").is_file() and (out_dir / "figures" / "cd_srr_structure.png").is_file()
    assert "wrote" in out and "10 s" in out


@pytest.mark.parametrize("argv,message", [
    (["compare", "A", "Z"], "unknown method 'Z'; known: A, B, C"),
    (["compare", "A", "A"], "two different methods"),
    (["compare", "A", "B", "--metric", "nope"], "no metric 'nope' in the scored predictions; metrics: "),
    (["ranks", "--budget", "3"], "budget 3 is not every method's budget (A, B, C have no fit at it); "
                                 "budgets of every method: 1, 4, 16"),
    (["ranks", "--metric", "nope"], "no metric 'nope'"),
    (["ranks", "--metric", "nrr_validaton"], "no metric 'nrr_validaton' in the scored predictions; "
                                             "did you mean 'nrr_validation'?; metrics: "),
    (["compare", "A", "B", "--metric", "srbench_symbolic_solution"],
     "srbench_symbolic_solution comes from SRBench's checks: run srbf score --srbench first"),
])
def test_bad_names_are_one_line_errors(scored, capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_ranks_at_a_budget_only_some_methods_have_exits_2(monkeypatch, capsys):
    serve_frame(monkeypatch, FRAME[~((FRAME["method"] == "C") & (FRAME["budget"] == 16.0))])
    code, out, err = run(capsys, "ranks", "--budget", "16")
    assert code == 2 and out == ""
    assert err == ("srbf: error: budget 16 is not every method's budget (C has no fit at it); "
                   "budgets of every method: 1, 4\n")
    code, out, err = run(capsys, "ranks", "--budget", "4", "--json")
    assert code == 0 and json.loads(out)["marks"][0]["budget"] == 4.0


@pytest.mark.parametrize("command", [["analyze", "-o", "unused"], ["compare", "A", "B"], ["ranks"]])
@pytest.mark.slow
def test_empty_store(capsys, tmp_path, command):
    from srbf.store import ResultsStore

    ResultsStore(tmp_path).close()  # a store with nothing in it
    code, out, err = run(capsys, *command, "--results", str(tmp_path))
    assert code == 2 and out == ""
    assert err == f"srbf: error: no scored predictions in {tmp_path}: run `srbf score` first\n"


def test_no_store(capsys, tmp_path):
    code, _, err = run(capsys, "ranks", "--results", str(tmp_path / "missing"))
    assert code == 2 and "no results store at" in err and err.count("\n") == 1


def scored_store(root, frame):
    """A results store holding ``frame``'s rows as predictions with their metrics (judge 1.0)."""
    from srbf.judge import JUDGE_VERSION
    from srbf.core import FitResult, TaskKey
    from srbf.store import ResultsStore

    metrics = ["success", "nrr_validation", "srr_structure", "log10_fvu_validation", "token_count_mismatch"]
    with ResultsStore(root) as store:
        campaigns = {}
        for row in frame.itertuples(index=False):
            if row.method not in campaigns:
                campaigns[row.method] = store.start_campaign(f"test-{row.method}", {}, f"h{row.method}",
                                                             row.provenance, git=None)
            key = TaskKey(row.method, f"h{row.method}", row.catalog, int(row.catalog_version), row.problem_id,
                          int(row.draw), float(row.budget), "n_support=512;noise=0", 0)
            ok = row.success == 1
            result = FitResult("ok" if ok else "failed", "x0" if ok else None, wall_seconds=row.seconds)
            pid = store.record(key, result, campaign_id=campaigns[row.method], data_hash="0")
            store.record_metrics(pid, JUDGE_VERSION, {m: getattr(row, m) for m in metrics})


@pytest.mark.slow
def test_end_to_end_from_a_scored_store(capsys, tmp_path):
    small = long_frame()
    small = small[small["problem_id"].isin(["p00", "p01", "p02", "p03"]) & (small["budget"] != 4.0)]
    scored_store(tmp_path / "results", small)
    code, out, err = run(capsys, "ranks", "--results", str(tmp_path / "results"), "--budget", "16", "--json")
    assert code == 0, err
    result = json.loads(out)
    ref = analyze(small, ["log10_fvu_validation"], times=(), compare_at="budget", parts=("ranks",)).ranks
    ref = ref[ref["budget"] == 16.0].set_index("method")["mean_rank"]
    assert {m["method"]: m["mean_rank"] for m in result["marks"][0]["methods"]} == pytest.approx(ref.to_dict())
    code, out, err = run(capsys, "compare", "A", "C", "--results", str(tmp_path / "results"), "--json",
                         "--at-seconds", "10")
    assert code == 0, err
    assert {r["metric"] for r in json.loads(out)} == {"nrr_validation", "srr_structure", "log10_fvu_validation",
                                                      "token_count_mismatch", "success"}


@pytest.mark.slow
def test_store_with_predictions_but_no_metrics(capsys, tmp_path):
    from srbf.core import FitResult, TaskKey
    from srbf.store import ResultsStore

    with ResultsStore(tmp_path) as store:
        campaign = store.start_campaign("unscored", {}, "h", "upstream_default", git=None)
        key = TaskKey("A", "h", "alpha", 1, "p00", 0, 1.0, "n_support=512;noise=0", 0)
        store.record(key, FitResult("ok", "x0", wall_seconds=0.1), campaign_id=campaign, data_hash="0")
    code, out, err = run(capsys, "analyze", "--results", str(tmp_path), "-o", str(tmp_path / "r"))
    assert code == 2 and out == ""
    assert err == f"srbf: error: no scored predictions in {tmp_path}: run `srbf score` first\n"
