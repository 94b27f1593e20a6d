"""A timing readout's times on the report's and the site's time axis, and the note that says so."""

import math

import pandas as pd
import pytest

from report_helpers import BUDGETS
from srbf.report.build import build_report
from srbf.site.analysis import scope_data
from srbf.stats.timing_readout import TimeAxisSource

pytestmark = pytest.mark.slow

# A readout that timed A and B (B's largest budget incomplete, so not placed) but not C.
AXIS = pd.DataFrame({"method": ["A", "A", "A", "B", "B"], "budget": [1.0, 4.0, 16.0, 1.0, 4.0],
                     "seconds": [0.5, 2.0, 8.0, 3.0, 30.0]})


def test_the_report_places_methods_by_the_readout_and_says_so(frame, tmp_path):
    timing = TimeAxisSource(AXIS, "the time axis is the timing readout of DIR")
    report = build_report(frame, tmp_path / "report", times=(1.0, 10.0), timing=timing)
    seconds = {(r.method, r.budget): r.seconds for r in report.analysis.time_axis.itertuples()}
    for row in AXIS.itertuples():
        assert seconds[(row.method, row.budget)] == row.seconds
    assert math.isnan(seconds[("B", 16.0)]) and all(math.isnan(seconds[("C", b)]) for b in BUDGETS)
    a = report.analysis.aggregates
    at_ten = a[(a["axis"] == "time") & (a["time"] == 10.0) & (a["metric"] == "nrr_validation")]
    status = dict(zip(at_ten["method"], at_ten["status"]))
    assert status == {"A": "max_tested", "B": "interpolated", "C": "n/a"}  # A: 8 s at most; C: no readout time
    assert "Note: the time axis is the timing readout of DIR." in report.index.read_text()
    plain = build_report(frame, tmp_path / "plain", times=(1.0, 10.0))
    assert "timing readout" not in plain.index.read_text()
    assert not plain.analysis.time_axis["seconds"].isna().all()


def test_the_site_reads_the_same_axis(frame):
    numbers = scope_data(frame, times=(1.0, 10.0), time_axis=AXIS)
    rows = pd.DataFrame(numbers["time_axis"]["data"], columns=numbers["time_axis"]["columns"])
    placed = rows.dropna(subset=["seconds"])
    assert sorted(zip(placed["method"], placed["budget"], placed["seconds"])) == sorted(AXIS.itertuples(index=False, name=None))
