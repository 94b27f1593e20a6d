"""The long frame: stored predictions joined with their metrics of one judge version, columns typed."""

from __future__ import annotations

import math

import pytest

from srbf.store import metrics_long_frame, parse_condition


def test_parse_condition():
    assert parse_condition("n_support=512;noise=0") == (512, 0.0)
    assert parse_condition("n_support=64;noise=0.01") == (64, 0.01)
    assert parse_condition("n_support=64") == (64, 0.0)
    for bad in ("n_support=a;noise=0", "noise=0", "n_support=5;colour=red", "512"):
        with pytest.raises(ValueError, match="condition"):
            parse_condition(bad)


def test_one_row_per_prediction_with_metrics_of_the_version_asked(store, campaign, make_key, make_result):
    ids = [store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h") for i in range(3)]
    store.record(make_key(3, condition="n_support=64;noise=0.1"), make_result(3, status="placeholder"),
                 campaign_id=campaign, data_hash="")  # fmt: skip
    placeholder = ids[-1] + 1
    record = {"success": 1, "r2_validation": 0.5, "failure_reason": None, "canonical_complete": True,
              "srbench_symbolic_note": "", "srbench_symbolic_undecided": False}  # fmt: skip
    failed = {"success": 0, "r2_validation": None, "failure_reason": "no prediction", "canonical_complete": None,
              "srbench_symbolic_note": "", "srbench_symbolic_undecided": False}  # fmt: skip
    store.record_metrics_many([(ids[0], record), (ids[1], failed), (placeholder, failed)], "9.9")
    store.record_metrics_many([(ids[2], record)], "9.8")
    with pytest.warns(UserWarning, match="1 of 3 prediction"):  # ids[2] has metrics of 9.8 only
        frame = metrics_long_frame(store, judge_version="9.9", method="linear", condition="n_support=512;noise=0")
    assert list(frame["prediction_id"]) == ids[:2]
    assert list(frame["success"]) == [1, 0] and frame["success"].dtype.kind in "if"
    assert frame["r2_validation"].iloc[0] == 0.5 and math.isnan(frame["r2_validation"].iloc[1])
    assert frame["failure_reason"].iloc[1] == "no prediction"  # text is not read as a number
    assert frame["canonical_complete"].dtype == "boolean" and frame["canonical_complete"].isna().iloc[1]
    assert (frame["n_support"] == 512).all() and (frame["noise"] == 0.0).all() and not frame["placeholder"].any()
    with pytest.warns(UserWarning, match="1 of 4 prediction"):
        everything = metrics_long_frame(store, judge_version="9.9").set_index("prediction_id")
    assert everything.loc[placeholder, "placeholder"] and everything.loc[placeholder, "n_support"] == 64
    with pytest.warns(UserWarning, match="3 of 4 prediction"):
        assert list(metrics_long_frame(store, judge_version="9.8")["prediction_id"]) == [ids[2]]


def test_the_judge_version_must_be_named(store):
    with pytest.raises(TypeError, match="judge_version"):
        metrics_long_frame(store)
