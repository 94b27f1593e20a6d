"""Hand-made records and descriptor tables for the distillation tests."""

from __future__ import annotations

import pandas as pd
import pytest

from srbf.distill.records import RUN_COLUMNS, Records


def make_records(rows: list[tuple], repeats: int = 3) -> Records:
    """Records from (method, task, repeat, valid, nmse_train, nmse_id, nmse_ood) tuples."""
    frame = pd.DataFrame(
        [(i, m, m, t, r, v, tr, i_, o) for i, (m, t, r, v, tr, i_, o) in enumerate(rows)], columns=list(RUN_COLUMNS)
    )
    return Records(runs=frame, source="hand-made", condition="n_support=8;noise=0", repeats=repeats)


@pytest.fixture
def records_from():
    return make_records
