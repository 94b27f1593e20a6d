"""Export of predictions to Parquet and CSV, read back with pandas."""

from __future__ import annotations

import json
import math

import pandas as pd
import pandas.testing as pdt
import pytest

from srbf.store.jsontext import loads


@pytest.fixture
def filled(store, campaign, make_key, make_result):
    from srbf.core import FitResult

    for i in range(4):
        store.record(
            make_key(i, method="ab"[i % 2]),
            make_result(i, wall_seconds=float("inf") if i == 3 else 1.0 + i),
            campaign_id=campaign,
            data_hash=f"h{i}",
            inputs_hash=f"x{i}" if i else None,  # one row as an older srbf stored it: no inputs hash
        )
    store.record(
        make_key(9),
        FitResult("crashed", error="Segmentation fault", internals={"x": float("nan")}),
        campaign_id=campaign,
        data_hash="h9",
    )
    return store


TEXT_COLUMNS = (
    "method",
    "config_hash",
    "catalog",
    "problem_id",
    "condition",
    "provenance",
    "status",
    "expression",
    "error",
    "data_hash",
    "inputs_hash",
    "internals",
    "stderr_tail",
    "created_at",
)


def _normalised(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as Python objects with None for missing, so frames from any source compare."""
    frame = frame.copy()
    for column in frame.columns:
        if column in TEXT_COLUMNS:
            frame[column] = [None if (value is None or value != value) else value for value in frame[column]]
            frame[column] = frame[column].astype(object)
    return frame


def test_parquet_round_trip(filled, tmp_path):
    path = filled.export(tmp_path / "out" / "predictions.parquet")
    back = pd.read_parquet(path)
    expected = filled.predictions_frame(decode_json=False)
    pdt.assert_frame_equal(_normalised(back), _normalised(expected))
    assert json.loads(back["internals"][0]) == filled.predictions_frame()["internals"][0]
    assert back["wall_seconds"][3] == float("inf")
    assert list(back["inputs_hash"][1:4]) == ["x1", "x2", "x3"]


def test_csv_round_trip(filled, tmp_path):
    path = filled.export(tmp_path / "predictions.csv", method="a")
    back = pd.read_csv(path)
    expected = filled.predictions_frame(decode_json=False, method="a")
    assert list(back.columns) == list(expected.columns) and len(back) == 2
    # in CSV an empty text and a missing one look the same: compare with both made missing
    for frame in (back, expected):
        frame["stderr_tail"] = frame["stderr_tail"].replace("", None)
    pdt.assert_frame_equal(_normalised(back), _normalised(expected), check_dtype=False)


def test_export_keeps_nan_and_inf(filled, tmp_path):
    for suffix in (".csv", ".parquet"):
        path = filled.export(tmp_path / f"all{suffix}")
        back = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
        assert back["wall_seconds"][3] == float("inf") and math.isnan(back["wall_seconds"][4])
        assert json.loads(back["internals"][4]) == {"x": "NaN"}  # standard JSON, for any reader
        assert math.isnan(loads(back["internals"][4])["x"])  # and NaN again through srbf's reader


def test_export_format(filled, tmp_path):
    assert filled.export(tmp_path / "x.data", format="csv").read_text().startswith("id,campaign_id,method")
    with pytest.raises(ValueError, match="cannot tell the export format"):
        filled.export(tmp_path / "x.data")
    with pytest.raises(ValueError, match="'xlsx'"):
        filled.export(tmp_path / "x.xlsx", format="xlsx")
