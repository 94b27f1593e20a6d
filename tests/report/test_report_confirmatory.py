"""Declaring the confirmatory family on the command line: parsing, one-line errors, Holm for the
declared pairs and Benjamini-Hochberg for the rest in the CSV, the report text and the terminal."""

import json

import pytest
from report_helpers import long_frame, run_cli, serve_frame

from srbf.cli import build_parser
from srbf.report import read_table
from srbf.report.data import ReportInputError, confirmatory_pairs
from srbf.stats import analyze, benjamini_hochberg, holm

FRAME = long_frame()


@pytest.fixture
def scored(monkeypatch):
    serve_frame(monkeypatch, FRAME)


run = run_cli


def test_options_parse_into_pairs_and_a_baseline():
    args = build_parser().parse_args(["analyze", "--confirmatory", "A:B", "--confirmatory", "C:A",
                                      "--confirmatory-vs", "B"])
    assert args.confirmatory == [("A", "B"), ("C", "A")] and args.confirmatory_vs == "B"
    args = build_parser().parse_args(["compare", "A", "B", "--confirmatory", "A:B"])
    assert args.confirmatory == [("A", "B")] and args.confirmatory_vs is None


@pytest.mark.parametrize("text", ["AB", "A:", ":B", "A:B:C"])
def test_a_malformed_pair_is_a_usage_error(capsys, text):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["analyze", "--confirmatory", text])
    assert stop.value.code == 2
    assert "A:B" in capsys.readouterr().err


def test_pairs_are_checked_and_deduplicated():
    assert confirmatory_pairs(FRAME, [("B", "A"), ("A", "B")]) == [("A", "B")]
    assert confirmatory_pairs(FRAME, [("B", "C")], versus="A") == [("A", "B"), ("A", "C"), ("B", "C")]
    assert confirmatory_pairs(FRAME) == []
    with pytest.raises(ReportInputError, match="unknown method 'Z' in the confirmatory comparisons; known: A, B, C"):
        confirmatory_pairs(FRAME, [("A", "Z")])
    with pytest.raises(ReportInputError, match="two different methods, got 'A' twice"):
        confirmatory_pairs(FRAME, [("A", "A")])


@pytest.mark.parametrize("argv,message", [
    (["compare", "A", "B", "--confirmatory", "A:Z"],
     "srbf: error: unknown method 'Z' in the confirmatory comparisons; known: A, B, C"),
    (["compare", "A", "B", "--confirmatory-vs", "Q"],
     "srbf: error: unknown method 'Q' in the confirmatory comparisons; known: A, B, C"),
    (["analyze", "-o", "unused", "--confirmatory", "Y:A"], "unknown method 'Y' in the confirmatory comparisons"),
    (["analyze", "-o", "unused", "--confirmatory", "B:B"],
     "srbf: error: a confirmatory comparison needs two different methods, got 'B' twice"),
])
@pytest.mark.slow
def test_bad_declarations_are_one_line_errors(scored, capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "unused").exists()


@pytest.mark.slow
def test_declared_pair_is_holm_the_rest_bh_in_the_report(scored, capsys, tmp_path):
    out_dir = tmp_path / "rep"
    code, _, err = run(capsys, "analyze", "-o", str(out_dir), "--metric", "nrr_validation",
                       "--metric", "log10_fvu_validation", "--at-seconds", "1", "--at-seconds", "10",
                       "--confirmatory", "B:A")
    assert code == 0, err
    table = read_table(out_dir / "tables" / "comparisons.csv")
    declared = (table["method_a"] == "A") & (table["method_b"] == "B")
    assert (table.loc[declared, "correction"] == "holm").all() and table.loc[declared, "confirmatory"].all()
    assert (table.loc[~declared, "correction"] == "benjamini-hochberg").all()
    assert not table.loc[~declared, "confirmatory"].any()
    for metric, rows in table.groupby("metric"):
        for family, adjust in ((declared, holm), (~declared, benjamini_hochberg)):
            part = rows[family.loc[rows.index]]
            assert part["p_adjusted"].to_numpy() == pytest.approx(adjust(part["p_value"]), nan_ok=True), metric
            assert set(part["family"]) == {("confirmatory:" if adjust is holm else "exploratory:") + metric}

    text = (out_dir / "index.md").read_text(encoding="utf-8")
    assert "all comparisons exploratory" not in text
    assert "**Confirmatory** (declared, marked ◆): A vs B; p-values Holm-corrected per metric" in text
    assert "**Exploratory**: every other comparison; p-values Benjamini–Hochberg-corrected" in text
    matrix = [line for line in text.splitlines() if line.startswith("| **A** |")][0]
    assert matrix.count("◆") == 1  # A vs B, not A vs C
    details = [line for line in text.splitlines() if line.startswith(("| A | B | ", "| B | C | "))]
    assert any("(Holm)" in line for line in details if line.startswith("| A | B |"))
    assert all("(BH)" in line for line in details if line.startswith("| B | C |"))


@pytest.mark.slow
def test_undeclared_report_says_every_comparison_is_exploratory(scored, capsys, tmp_path):
    out_dir = tmp_path / "rep"
    code, _, err = run(capsys, "analyze", "-o", str(out_dir), "--metric", "nrr_validation", "--at-seconds", "10")
    assert code == 0, err
    text = (out_dir / "index.md").read_text(encoding="utf-8")
    assert "No comparison was declared confirmatory: every comparison is **exploratory**" in text
    assert "◆" not in text
    assert (read_table(out_dir / "tables" / "comparisons.csv")["correction"] == "benjamini-hochberg").all()


@pytest.mark.slow
def test_compare_against_a_baseline(scored, capsys):
    code, out, err = run(capsys, "compare", "C", "A", "--metric", "nrr_validation", "--confirmatory-vs", "A",
                         "--json", *[a for t in (1, 10, 100, 1000) for a in ("--at-seconds", str(t))])
    assert code == 0, err
    records = json.loads(out)
    assert records and all(r["confirmatory"] and r["correction"] == "holm" for r in records)
    ref = analyze(FRAME, ["nrr_validation"], confirmatory=[("A", "B"), ("A", "C")]).comparisons
    ref = ref[(ref["method_a"] == "A") & (ref["method_b"] == "C")].set_index("time")["p_adjusted"]
    live = [r for r in records if r["verdict"] != "n/a"]  # n/a: no p-value (null in JSON)
    assert live
    for record in live:
        assert record["p_adjusted"] == pytest.approx(ref[record["time"]], rel=1e-12)

    code, out, _ = run(capsys, "compare", "B", "C", "--metric", "nrr_validation", "--confirmatory-vs", "A",
                       "--at-seconds", "10")
    assert code == 0 and "p of Δ = 0 (BH, exploratory)" in out
    code, out, _ = run(capsys, "compare", "A", "B", "--metric", "nrr_validation", "--confirmatory-vs", "A",
                       "--at-seconds", "10")
    assert code == 0 and "p of Δ = 0 (Holm, confirmatory)" in out
