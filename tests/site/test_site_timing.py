"""The explorer built with a timing readout's time axis says so in its footer, and still draws."""

from __future__ import annotations

import pandas as pd
import pytest

from site_helpers import Page
from srbf.site.build import build_site, read_data
from srbf.site.load import load_results
from srbf.stats.timing_readout import TimeAxisSource

pytestmark = pytest.mark.slow

NOTE = "the time axis is the timing readout of DIR (262 problems in 29 sets)"


def test_the_footer_names_the_readout_the_time_axis_comes_from(browser, store, tmp_path):
    frame = load_results(str(store), (), [])
    axis = pd.DataFrame({"method": ["linear", "prior", "prior"], "budget": [1.0, 1.0, 4.0],
                         "seconds": [0.001, 0.01, 0.04]})
    build_site(frame, tmp_path / "site", per_set=False, timing=TimeAxisSource(axis, NOTE))
    assert read_data(tmp_path / "site" / "data" / "manifest.js")["time_axis"] == NOTE
    opened = Page(browser, tmp_path / "site")
    page = opened.open("view=curves&x=seconds")
    assert f"Note: {NOTE}." in page.locator("#footer").inner_text()
    assert opened.errors == []
    opened.close()
    plain = build_site(frame, tmp_path / "plain", per_set=False)
    assert read_data(plain.directory / "data" / "manifest.js")["time_axis"] is None
