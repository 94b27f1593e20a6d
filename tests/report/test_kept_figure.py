"""Curve figures drawn on a kept figure of their layout are the bytes of the same figures drawn on a
new one, whatever was drawn on the kept one before (bands, bars, medians, linear and log axes,
empty panels, no times)."""

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from srbf.report import kept_figure
from srbf.report.figure_files import figure_files
from srbf.report.figures import curves_figure
from srbf.stats import analyze

METRICS = ["nrr_validation", "log10_fvu_validation", "r2_validation", "token_count_mismatch"]


@pytest.fixture(scope="module")
def cases(frame):
    """(name, aggregates, metric, options) in the order they are drawn: several per layout key."""
    frame = frame.assign(r2_validation=1 - 10 ** frame["log10_fvu_validation"])
    full = analyze(frame, METRICS, n_resamples=100).aggregates
    zero = frame.assign(budget=frame["budget"].replace({1.0: 0.0}))  # a budget of 0: linear budget axes
    at_zero = analyze(zero, METRICS, n_resamples=100).aggregates
    untimed = analyze(frame.assign(seconds=np.nan), METRICS, times=(), n_resamples=100).aggregates
    one_budget = analyze(frame[frame["budget"] == 4.0], METRICS, n_resamples=100).aggregates  # bars, not bands
    no_c = full[~((full["method"] == "C") & (full["metric"].isin(["nrr_validation", "r2_validation"])))]
    two = analyze(frame[frame["method"] != "C"], METRICS, n_resamples=100).aggregates
    return [
        ("nrr", full, "nrr_validation", {"times": (1.0, 10.0)}),
        ("r2 median", full, "r2_validation", {"times": (1.0,)}),
        ("log at zero", at_zero, "log10_fvu_validation", {"times": (10.0,)}),
        ("untimed", untimed, "token_count_mismatch", {}),
        ("one budget", one_budget, "nrr_validation", {"times": (1.0, 10.0)}),
        ("incomplete shown", full, "log10_fvu_validation", {"times": (1.0,), "show_incomplete": True}),
        ("C empty", no_c, "nrr_validation", {"times": (1.0,)}),
        ("C empty, median", no_c, "r2_validation", {"times": (10.0,)}),
        ("two methods", two, "token_count_mismatch", {"times": (1.0,)}),
        ("two methods again", two, "nrr_validation", {"times": (1.0, 10.0)}),
    ]


@pytest.mark.slow
def test_figures_drawn_on_kept_figures_are_the_bytes_of_new_ones(tmp_path, cases):
    files = figure_files("png,pdf")
    kept_figure._kept.clear()
    kept = [curves_figure(aggregates, metric, tmp_path / "kept" / f"{name}.png", {"A": "x"}, files=files, **options)
            for name, aggregates, metric, options in cases]
    assert len(kept_figure._kept) == 3  # three methods, C's panel left empty, two methods: each reused
    for (name, aggregates, metric, options), paths in zip(cases, kept):
        kept_figure._kept.clear()
        fresh = curves_figure(aggregates, metric, tmp_path / "new" / f"{name}.png", {"A": "x"}, files=files,
                              **options)
        assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in fresh], name


def test_a_process_keeps_a_few_layouts_the_oldest_dropped_first():
    from matplotlib.figure import Figure

    kept_figure._kept.clear()
    built = {key: kept_figure.kept_layout(key, lambda: (Figure(),)) for key in range(kept_figure.KEPT_LAYOUTS + 1)}
    assert list(kept_figure._kept) == list(range(1, kept_figure.KEPT_LAYOUTS + 1))
    assert kept_figure.kept_layout(1, lambda: (Figure(),)) is built[1]  # kept: handed back, cleared
    kept_figure._kept.clear()


def _builds_anew(key) -> bool:
    """In a forked process: whether asking for ``key``, which the parent kept, builds a figure."""
    from matplotlib.figure import Figure

    built = []
    kept_figure.kept_layout(key, lambda: built.append(1) or (Figure(),))
    return bool(built)


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="no fork on this platform")
def test_a_forked_process_builds_its_own_figures():
    """A kept figure's renderer holds font faces that read through descriptors a fork shares: a
    child drawing on its parent's kept figure, beside the parent, could read another's glyph."""
    from matplotlib.figure import Figure

    kept_figure._kept.clear()
    kept_figure.kept_layout("parent's", lambda: (Figure(),))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        assert pool.submit(_builds_anew, "parent's").result()
    assert not _builds_anew("parent's")  # here it is still kept
    kept_figure._kept.clear()
