"""Figures drawn in forked workers: the same files as drawn in-process, in the jobs' order, and a
figure that fails fails the report. A Painter (a drawing process started before the analysis)
draws the same files, and the report's process never imports matplotlib."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from srbf.report.cd import cd_figure
from srbf.report.drawing import Painter, start_drawing
from srbf.report.figure_files import figure_files
from srbf.report.figure_jobs import cd_panels
from srbf.report.figures import curves_figure
from srbf.report.markdown_tables import time_marks
from srbf.stats import analyze

pytestmark = pytest.mark.slow

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


def test_a_painter_draws_the_same_files_in_another_process(frame, tmp_path):
    alone = start_drawing(report_jobs(frame, tmp_path / "alone"), workers=1).wait()
    with Painter(workers=2) as painter:
        jobs = report_jobs(frame, tmp_path / "painted")
        painter.draw(jobs[:2])  # in two batches: the paths come in the order of the jobs
        painter.draw(jobs[2:])
        painted = painter.wait()
    assert [p.relative_to(tmp_path / "painted") for p in painted] == [p.relative_to(tmp_path / "alone") for p in alone]
    for a, b in zip(alone, painted):
        assert a.read_bytes() == b.read_bytes(), a.name
    with Painter(workers=2) as painter:
        painter.draw([(process_id, (), {})])
        assert Path(str(os.getpid())) not in painter.wait()
    with Painter(workers=1) as painter:  # one core: drawn here, as it is handed over
        painter.draw([(process_id, (), {})])
        assert painter.wait() == [Path(str(os.getpid()))]


def test_a_job_may_name_its_function_and_a_painter_may_go_unused(frame, tmp_path):
    jobs = report_jobs(frame, tmp_path / "object")
    named = [(f"{function.__module__}:{function.__name__}", args, {**options, "path": tmp_path / "named" / "f.png"})
             for function, args, options in jobs[:1]]
    assert named[0][0] == "srbf.report.figures:curves_figure"
    [a, _], [b, _] = start_drawing(jobs[:1], workers=1).wait(), start_drawing(named, workers=1).wait()
    assert a.read_bytes() == b.read_bytes()
    with Painter(workers=2):
        pass  # never given figures: leaving stops its process
    with Painter(workers=2) as painter:
        painter.draw([])
        assert painter.wait() == []


def test_a_painter_passes_on_a_failing_figure():
    with Painter(workers=2) as painter:
        painter.draw([(process_id, (), {}), (broken_figure, (), {})])
        with pytest.raises(ValueError, match="cannot be drawn"):
            painter.wait()


def test_building_a_report_leaves_matplotlib_to_the_drawing_process(tmp_path):
    code = ("import sys; sys.path.insert(0, 'tests/report'); from report_helpers import long_frame; "
            "from srbf.report.build import build_report; from srbf.report.drawing import Painter; "
            f"painter = Painter(workers=2); build_report(long_frame(), {str(tmp_path / 'r')!r}, "
            "metrics=['nrr_validation'], n_resamples=50, painter=painter); "
            "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert (tmp_path / "r" / "figures" / "curve_nrr_validation.png").stat().st_size > 0
