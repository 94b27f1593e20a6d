"""Figures of one size share an Agg renderer in a process: the same bytes as with a fresh one."""

import pytest

from srbf.report.agg_canvas import ReusingCanvas, warm_up
from srbf.report.figures import curves_figure
from srbf.stats import analyze

pytestmark = pytest.mark.slow


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


def test_a_large_figure_gets_a_renderer_of_its_own(tmp_path):
    from matplotlib.figure import Figure

    from srbf.report.figure_files import figure_files

    ReusingCanvas._kept = None
    fig = Figure(figsize=(10, 6))
    fig.add_subplot().plot([0, 1], [0, 1])
    figure_files("png", 400).save(fig, tmp_path / "large.png", 100)  # 4000 x 2400 pixels
    assert ReusingCanvas._kept is None
    figure_files("png", 100).save(fig, tmp_path / "small.png", 100)
    assert ReusingCanvas._kept is not None and ReusingCanvas._kept[0][:2] == (1000, 600)
