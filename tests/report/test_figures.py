"""Paper-ready figures: formats, resolution, display names, budgets per method, repeated time
marks folded, and every method compared at its own largest budget."""

import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from report_helpers import long_frame, run_cli, serve_frame

from srbf.report import build_report, read_table
from srbf.report.figure_files import figure_files
from srbf.stats import analyze, display_name

pytestmark = pytest.mark.slow

METRICS = ["nrr_validation", "log10_fvu_validation"]


def png_size(path):
    """Width and height from the PNG's IHDR chunk (the first one, right after the signature)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def every_format(tmp_path_factory, frame):
    return build_report(frame, tmp_path_factory.mktemp("f") / "report", metrics=METRICS, n_resamples=200,
                        files=figure_files("png,pdf,svg", 50))


def test_each_format_is_written_and_readable(every_format):
    stems = {p.stem for p in every_format.figures}
    assert {"curve_nrr_validation", "verdicts_nrr_validation", "cd_log10_fvu_validation"} <= stems
    for stem in stems:
        png, pdf, svg = (every_format.directory / "figures" / f"{stem}.{fmt}" for fmt in ("png", "pdf", "svg"))
        png_size(png)
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.read_bytes().rstrip().endswith(b"%%EOF")
        assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert len(every_format.figures) == 3 * len(stems)
    index = every_format.index.read_text()
    assert "](figures/curve_nrr_validation.png)" in index and ".svg)" not in index  # a bitmap is embedded


def test_dpi_is_honoured(every_format, tmp_path, frame):
    curve = every_format.directory / "figures" / "curve_nrr_validation.png"
    width, height = png_size(curve)
    assert width == 10 * 50  # the curves figure is 10 inches wide
    default = build_report(frame, tmp_path / "d", metrics=["nrr_validation"], n_resamples=100)
    assert {p.suffix for p in default.figures} == {".png"}
    assert png_size(default.directory / "figures" / "curve_nrr_validation.png") == (2000, height * 4)  # 200 dpi


def test_display_names_title_the_figures_and_the_code_is_in_the_caption(every_format):
    name = display_name("nrr_validation")
    assert name == "validation numeric recovery rate"
    svg = (every_format.directory / "figures" / "curve_nrr_validation.svg").read_text()
    assert name in svg and "nrr_validation" not in svg  # text kept as text: the title is the name
    assert display_name("log10_fvu_validation") in (every_format.directory / "figures" / "cd_log10_fvu_validation.svg"
                                                     ).read_text()
    index = every_format.index.read_text()
    assert f"_{name} (`nrr_validation`) against each method's budget" in index
    assert f"### {name} (`nrr_validation`)" in index
    assert display_name("made_up_metric") == "made up metric"


def test_budgets_are_drawn_per_method_never_two_units_on_one_axis(every_format):
    svg = (every_format.directory / "figures" / "curve_nrr_validation.svg").read_text()
    for method in "ABC":
        assert svg.count(f"{method} (") >= 2  # a panel of its own and a legend entry
    assert "one panel per method" in svg and "each method's own unit" not in svg


def fast(frame):
    """Every method done in under 10 s at every budget."""
    return frame.assign(seconds=frame["seconds"] / frame["seconds"].max() * 9.0)


def test_a_time_mark_repeating_the_previous_one_is_folded_into_it(tmp_path):
    report = build_report(fast(long_frame()), tmp_path / "r", metrics=METRICS, n_resamples=200,
                          times=(1.0, 10.0, 100.0, 1000.0))  # asked for: the data would choose the largest budgets
    assert [m.label for m in report.marks] == ["1 s", "10 s"]
    note = report.notes[0]
    assert note.startswith("100 s, 1000 s: every value equals the one at 10 s") and len(report.notes) == 1
    aggregates = report.analysis.aggregates
    at = {t: aggregates[(aggregates["axis"] == "time") & (aggregates["time"] == t)].set_index(["method", "metric"])
          for t in (10.0, 100.0, 1000.0)}
    assert (at[10.0]["estimate"] == at[1000.0]["estimate"]).all()  # what made the rule fire
    index = report.index.read_text()
    assert f"Note: {note}." in index and "**At 100 s**" not in index
    board = read_table(report.tables["leaderboard"])  # the tables keep every mark, at full precision
    assert list(board["mark"].unique()) == ["1 s", "10 s", "100 s", "1000 s"]


def test_marks_with_different_values_are_all_kept(tmp_path, frame):
    report = build_report(frame, tmp_path / "r", metrics=["nrr_validation"], times=(1.0, 10.0), n_resamples=100)
    assert [m.label for m in report.marks] == ["1 s", "10 s"] and report.notes == []


def ladders(frame):
    """C counts its budget in another unit: 1000, 4000, 16000."""
    frame = frame.copy()
    frame.loc[frame["method"] == "C", "budget"] *= 1000
    return frame


def test_at_budget_max_compares_each_method_at_its_own_largest_budget(tmp_path):
    frame = ladders(long_frame())
    report = build_report(frame, tmp_path / "r", metrics=METRICS, n_resamples=200, at_budget="max")
    (mark,) = report.marks
    assert mark == report.headline and mark.label == "each method's largest budget"
    plain = analyze(frame, METRICS, times=(), parts=("aggregates",)).aggregates
    at_max = mark.select(report.analysis.aggregates)
    for method, largest in (("A", 16.0), ("B", 16.0), ("C", 16000.0)):
        mine = at_max[(at_max["method"] == method) & (at_max["metric"] == "nrr_validation")].iloc[0]
        own = plain[(plain["axis"] == "budget") & (plain["method"] == method) & (plain["budget"] == largest)
                    & (plain["metric"] == "nrr_validation")].iloc[0]
        assert mine["budget"] == largest and mine["estimate"] == pytest.approx(own["estimate"], abs=1e-12)
    pairs = mark.select(report.analysis.comparisons)
    pairs = pairs[pairs["metric"] == "nrr_validation"]
    assert len(pairs) == 3 and (pairs["n_pairs"] == 30).all()
    a_c = pairs[(pairs["method_a"] == "A") & (pairs["method_b"] == "C")].iloc[0]
    rows = frame[frame["budget"].isin([16.0, 16000.0])].groupby(["method", "catalog", "problem_id"])["nrr_validation"]
    per_problem = rows.mean().unstack("method")
    assert np.sign(a_c["delta"]) == np.sign((per_problem["A"] - per_problem["C"]).mean()) == 1
    ranks = mark.select(report.analysis.ranks)
    assert set(ranks["method"]) == {"A", "B", "C"}
    index = report.index.read_text()
    assert "At **each method's largest budget** (A: 16, B: 16, C: 16000)" in index


def test_analyze_cli_formats_dpi_and_at_budget(monkeypatch, capsys, tmp_path):
    serve_frame(monkeypatch, fast(ladders(long_frame())))
    out = tmp_path / "r"
    code, stdout, err = run_cli(capsys, "analyze", "-o", str(out), "--metric", "nrr_validation", "--format",
                                "svg,pdf", "--dpi", "72", *[a for t in (1, 10, 100, 1000) for a in ("--at-seconds", str(t))])
    assert code == 0 and "srbf: note: 100 s, 1000 s: every value equals the one at 10 s" in err
    assert "srbf: reading at the time marks 1, 10, 100, 1000 s (as asked: --at-seconds 1, 10, 100, 1000)" in err
    assert {p.suffix for p in (out / "figures").iterdir()} == {".svg", ".pdf"}
    code, stdout, err = run_cli(capsys, "analyze", "-o", str(tmp_path / "m"), "--metric", "nrr_validation",
                                "--at-budget", "max")
    assert code == 0 and "leaderboard at each method's largest budget" in stdout
    code, stdout, err = run_cli(capsys, "analyze", "-o", str(tmp_path / "d"), "--metric", "nrr_validation")
    assert code == 0 and "leaderboard at each method's largest budget" in stdout  # chosen from the data
    assert "chosen from the data: no time mark among 1, 10, 100, 1000 s lies within every method's measured" in err


@pytest.mark.parametrize("argv,message", [
    (["--format", "png,jpg"], "--format: unknown figure format 'jpg' (choose among png, pdf, svg, comma-separated)"),
    (["--format", ""], "--format: unknown figure format"),
    (["--dpi", "0"], "--dpi: must be a whole number of dots per inch from 1 to 2400, got '0'"),
    (["--dpi", "high"], "--dpi: must be a whole number of dots per inch from 1 to 2400, got 'high'"),
    (["--at-budget", "min"], "--at-budget: must be one of max (every method at its own largest budget), got 'min'"),
    (["--at-budget", "max", "--at-seconds", "10"], "--at-budget and --at-seconds exclude each other"),
])
def test_bad_figure_options_are_one_line_errors(monkeypatch, capsys, tmp_path, argv, message):
    serve_frame(monkeypatch, long_frame())
    code, out, err = run_cli(capsys, "analyze", "-o", str(tmp_path / "r"), *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "r").exists()


def test_every_metric_of_the_rules_table_has_a_display_name():
    from srbf.stats import DISPLAY_NAMES, RULES

    assert set(RULES) <= set(DISPLAY_NAMES)
    assert len(set(DISPLAY_NAMES.values())) == len(DISPLAY_NAMES)  # no two metrics look alike
