"""The report tests' fixtures (their data and helpers: report_helpers.py)."""

import pytest

from report_helpers import long_frame


@pytest.fixture(scope="session")
def frame():
    return long_frame()
