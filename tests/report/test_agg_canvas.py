"""Figures of one size share an Agg renderer in a process: the same bytes as with a fresh one."""

from srbf.report.agg_canvas import ReusingCanvas, warm_up
from srbf.report.figures import curves_figure
from srbf.stats import analyze


def test_a_figure_drawn_on_a_kept_renderer_has_the_bytes_of_a_fresh_one(tmp_path, frame):
    aggregates = analyze(frame, ["nrr_validation", "log10_fvu_validation"], n_resamples=200).aggregates
    warm_up()
    ReusingCanvas._kept = None
    [fresh] = curves_figure(aggregates, "log10_fvu_validation", tmp_path / "fresh.png", {})
    curves_figure(aggregates, "nrr_validation", tmp_path / "before.png", {})
    renderer = ReusingCanvas._kept[1]
    [reused] = curves_figure(aggregates, "log10_fvu_validation", tmp_path / "reused.png", {})
    assert ReusingCanvas._kept[1] is renderer  # the same size: drawn on the same renderer
    assert reused.read_bytes() == fresh.read_bytes()
