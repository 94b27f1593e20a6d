"""Figures drawn in forked workers: the same files as drawn in-process, in the jobs' order, and a
figure that fails fails the report."""

import os
from pathlib import Path

import pytest

from srbf.report.cd import cd_figure
from srbf.report.drawing import start_drawing
from srbf.report.figure_files import figure_files
from srbf.report.figures import cd_panels, curves_figure
from srbf.report.markdown_tables import time_marks
from srbf.stats import analyze

METRICS = ["nrr_validation", "log10_fvu_validation"]


def report_jobs(frame, folder: Path) -> list:
    analysis = analyze(frame, METRICS, n_resamples=200)
    files = figure_files("png,pdf", 40)
    jobs = [(curves_figure, (analysis.aggregates, metric),
             {"path": folder / f"curve_{metric}.png", "provenance": {}, "files": files}) for metric in METRICS]
    panels = cd_panels(analysis.ranks, "log10_fvu_validation", time_marks(analysis.aggregates, [1.0, 10.0]))
    assert panels  # the fixture's methods are ranked at these marks
    return [*jobs, (cd_figure, (panels,), {"path": folder / "cd.png", "files": files})]


def test_workers_write_the_same_files_as_one_process(frame, tmp_path):
    alone = start_drawing(report_jobs(frame, tmp_path / "alone"), workers=1).wait()
    forked = start_drawing(report_jobs(frame, tmp_path / "forked"), workers=2).wait()
    assert [p.relative_to(tmp_path / "forked") for p in forked] == [p.relative_to(tmp_path / "alone") for p in alone]
    assert [p.suffix for p in alone] == [".png", ".pdf"] * 3  # each job's formats, jobs in order
    for a, b in zip(alone, forked):
        assert a.read_bytes() == b.read_bytes(), a.name


def process_id() -> list[Path]:
    return [Path(str(os.getpid()))]


def test_two_workers_draw_in_other_processes_and_one_draws_here():
    here = Path(str(os.getpid()))
    assert start_drawing([(process_id, (), {})] * 2, workers=1).wait() == [here, here]
    assert here not in start_drawing([(process_id, (), {})] * 2, workers=2).wait()


def broken_figure() -> list[Path]:
    raise ValueError("this figure cannot be drawn")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_figure_raises_its_error(workers):
    with pytest.raises(ValueError, match="cannot be drawn"):
        start_drawing([(process_id, (), {}), (broken_figure, (), {})], workers=workers).wait()
