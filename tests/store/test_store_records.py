"""Writing and reading back: predictions, trajectories, campaigns, metrics, resume by key."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from srbf.store import DuplicateKeyWarning, StoreError, row_key


def test_record_reads_back_equal(store, campaign, make_key, make_result):
    key = make_key(7, budget=1e-3, condition="n_support=8;noise=0.1")
    result = make_result(
        7,
        error="a warning the method printed",
        internals={"log_prob": -12.5, "nested": {"a": [1, 2, {"b": None}]}, "name": "π·x0", "flag": True},
        trajectory=[(0.5, "x0"), (0.5, "x0 + 1"), (0.25, "sin(x0)"), (2.0, "x0 + 7")],  # order as reported
        stderr_tail="line 1\nline 2\n",
    )
    prediction_id = store.record(key, result, campaign_id=campaign, data_hash="sha256:abc", inputs_hash="sha256:x")
    frame = store.predictions_frame()
    assert len(frame) == 1
    row = frame.iloc[0]
    assert row["id"] == prediction_id and row["campaign_id"] == campaign
    assert row_key(row) == key
    assert row_key(next(frame.itertuples())) == key
    for field in (
        "status",
        "expression",
        "error",
        "wall_seconds",
        "cpu_seconds",
        "method_seconds",
        "internals",
        "stderr_tail",
    ):
        assert row[field] == getattr(result, field), field
    assert row["data_hash"] == "sha256:abc" and row["inputs_hash"] == "sha256:x"
    assert row["provenance"] == "upstream_default"  # the campaign's
    steps = store.trajectories_frame(prediction_id=prediction_id)
    assert list(steps["step"]) == [0, 1, 2, 3]
    assert list(zip(steps["seconds"], steps["expression"], strict=True)) == result.trajectory


def test_empty_fields_and_failures(store, campaign, make_key):
    from srbf.core import FitResult

    for i, status in enumerate(("failed", "timeout", "crashed", "placeholder")):
        store.record(make_key(i), FitResult(status, error=f"{status}!"), campaign_id=campaign, data_hash="")
    frame = store.predictions_frame()
    assert list(frame["status"]) == ["failed", "timeout", "crashed", "placeholder"]
    assert frame["expression"].isna().all() and frame["wall_seconds"].isna().all()
    assert frame["inputs_hash"].isna().all()  # not given: unknown, NULL
    assert list(frame["internals"]) == [{}] * 4
    assert store.trajectories_frame().empty


def test_nan_and_infinities(store, campaign, make_key, make_result):
    nan, inf = float("nan"), float("inf")
    result = make_result(
        wall_seconds=inf,
        cpu_seconds=nan,
        method_seconds=-inf,
        internals={"loss": nan, "bounds": [-inf, inf], "array": np.array([1.0, nan]), "n": np.int64(3)},
        trajectory=[(nan, "x0"), (inf, "x1")],
    )
    store.record(make_key(), result, campaign_id=campaign, data_hash="h")
    row = store.predictions_frame().iloc[0]
    assert row["wall_seconds"] == inf and row["method_seconds"] == -inf
    assert math.isnan(row["cpu_seconds"])  # stored as NULL, read back as NaN
    internals = row["internals"]
    assert math.isnan(internals["loss"]) and internals["bounds"] == [-inf, inf]
    assert internals["array"][0] == 1.0 and math.isnan(internals["array"][1]) and internals["n"] == 3
    seconds = store.trajectories_frame()["seconds"]
    assert math.isnan(seconds[0]) and seconds[1] == inf
    # plain SQL sees NULL for the NaN
    assert store._conn.execute("SELECT cpu_seconds FROM predictions").fetchone()[0] is None


def test_duplicate_key_is_written_once(store, campaign, make_key, make_result):
    first = store.record(make_key(1), make_result(1), campaign_id=campaign, data_hash="h")
    with pytest.warns(DuplicateKeyWarning, match="already stored as prediction"):
        again = store.record(
            make_key(1), make_result(2, expression="other"), campaign_id=campaign, data_hash="h"
        )
    assert again == first
    frame = store.predictions_frame()
    assert len(frame) == 1 and frame["expression"][0] == "x0 + 1"
    assert len(store.trajectories_frame()) == 2  # the first result's two steps, not doubled
    # the budget is compared as a number: 60 and 60.0 are the same key
    with pytest.warns(DuplicateKeyWarning):
        store.record(make_key(1, budget=60), make_result(1), campaign_id=campaign, data_hash="h")


@pytest.mark.parametrize(
    "change",
    [
        {"method": "other"},
        {"config_hash": "cfg-2"},
        {"catalog": "feynman"},
        {"catalog_version": 2},
        {"problem_id": "nguyen-2"},
        {"draw": 1},
        {"budget": 60.5},
        {"condition": "n_support=512;noise=0.01"},
        {"seed": 1},
    ],
)
def test_every_key_field_distinguishes(store, campaign, make_key, make_result, change):
    base = make_key(0, problem_id="nguyen-1", draw=0)
    store.record(base, make_result(), campaign_id=campaign, data_hash="h")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.record(dataclasses.replace(base, **change), make_result(), campaign_id=campaign, data_hash="h")
    assert len(store.predictions_frame()) == 2


def test_done_keys_drive_resume(store, campaign, make_key, make_result):
    planned = [make_key(i) for i in range(10)]
    for key in planned[:4]:
        store.record(key, make_result(), campaign_id=campaign, data_hash="h")
    store.record(make_key(0, config_hash="cfg-2"), make_result(), campaign_id=campaign, data_hash="h")
    done = store.done_keys("cfg-1")
    assert done == set(planned[:4])
    assert len(store.done_keys()) == 5
    resumed = store.start_campaign("test (resumed)", {}, "cfg-1", "upstream_default", git=None)
    for key in planned:
        if key not in done:
            store.record(key, make_result(), campaign_id=resumed, data_hash="h")
    assert store.done_keys("cfg-1") == set(planned)
    frame = store.predictions_frame(config_hash="cfg-1")
    assert list(frame["campaign_id"]) == [campaign] * 4 + [resumed] * 6


def test_invalid_input_is_refused_before_writing(store, campaign, make_key, make_result):
    with pytest.raises(ValueError, match="status 'done'"):
        store.record(make_key(), make_result(status="done"), campaign_id=campaign, data_hash="h")
    with pytest.raises(TypeError, match="draw must be an integer"):
        store.record(make_key(draw=1.0), make_result(), campaign_id=campaign, data_hash="h")
    with pytest.raises(ValueError, match="budget is NaN"):
        store.record(make_key(budget=float("nan")), make_result(), campaign_id=campaign, data_hash="h")
    with pytest.raises(TypeError, match="internals of"):
        store.record(make_key(), make_result(internals={"x": object()}), campaign_id=campaign, data_hash="h")
    with pytest.raises(StoreError, match="no campaign 99"):
        store.record(make_key(), make_result(), campaign_id=99, data_hash="h")
    with pytest.raises(TypeError, match="inputs_hash must be a string"):
        store.record(make_key(), make_result(), campaign_id=campaign, data_hash="h", inputs_hash=b"x")
    with pytest.raises(ValueError, match="provenance 'tuned'"):
        store.start_campaign("x", {}, "cfg", "tuned")
    assert store.predictions_frame().empty


def test_provenance_defaults_to_the_campaign(store, make_key, make_result):
    blessed = store.start_campaign("b", {}, "cfg-1", "author_blessed", git=None)
    store.record(make_key(0), make_result(), campaign_id=blessed, data_hash="h")
    store.record(make_key(1), make_result(), campaign_id=blessed, data_hash="h", provenance="harness_tuned")
    assert list(store.predictions_frame()["provenance"]) == ["author_blessed", "harness_tuned"]


def test_campaigns_record_config_git_and_machine(store):
    config = {"methods": {"pysr": {"niterations": 40}}, "seeds": [0, 1], "noise": float("inf")}
    first = store.start_campaign("exp", config, "hash-1", "harness_tuned", git=("0123abcd", True))
    second = store.start_campaign("exp", config, "hash-1", "harness_tuned", git=None)
    store.start_campaign("exp", config, "hash-1", "harness_tuned")  # "auto": whatever this checkout is
    frame = store.campaigns_frame()
    assert list(frame["id"]) == [first, second, 3]
    assert frame["config"][0] == config
    assert frame["git_commit"][0] == "0123abcd" and bool(frame["git_dirty"][0]) is True
    assert frame["git_commit"].isna()[1] and frame["git_dirty"].isna()[1]
    assert frame["cpu_count"][0] >= 1 and frame["python_version"][0].count(".") == 2
    assert frame["hostname"][0] and frame["srbf_version"][0]


def test_filters(store, campaign, make_key, make_result):
    for i in range(6):
        store.record(
            make_key(i, method=("a", "b", "c")[i % 3]), make_result(i), campaign_id=campaign, data_hash="h"
        )
    assert list(store.predictions_frame(method="a")["seed"]) == [0, 3]
    assert list(store.predictions_frame(method=["a", "c"])["seed"]) == [0, 2, 3, 5]
    assert store.predictions_frame(method=[]).empty
    assert store.predictions_frame(campaign_id=campaign + 1).empty
    assert set(store.trajectories_frame(method="b")["prediction_id"]) == {2, 5}
    with pytest.raises(ValueError, match="cannot filter predictions by 'internals'"):
        store.predictions_frame(internals={})


def test_metrics_unique_per_judge_version(store, campaign, make_key, make_result):
    ids = [store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h") for i in range(3)]
    assert list(store.unscored_predictions("judge-1")["id"]) == ids
    first = store.record_metrics(ids[0], "judge-1", {"r2": 0.9, "fvu": float("inf"), "exact": False})
    store.record_metrics(ids[1], "judge-1", {"r2": float("nan"), "fvu": 0.1, "exact": True})
    assert list(store.unscored_predictions("judge-1")["id"]) == [ids[2]]
    assert list(store.unscored_predictions("judge-2")["id"]) == ids

    with pytest.warns(DuplicateKeyWarning, match="kept them"):
        assert store.record_metrics(ids[0], "judge-1", {"r2": 0.1}) == first
    frame = store.metrics_frame("judge-1")
    assert len(frame) == 2 and frame["r2"][0] == 0.9 and frame["fvu"][0] == float("inf")
    assert math.isnan(frame["r2"][1])
    assert row_key(frame.iloc[1]) == make_key(1)

    store.record_metrics(ids[0], "judge-1", {"r2": 0.5}, replace=True)
    assert store.metrics_frame("judge-1")["r2"][0] == 0.5
    store.record_metrics(ids[0], "judge-2", {"r2": 0.7})
    assert len(store.metrics_frame()) == 3
    assert list(store.metrics_frame("judge-2", expand=False)["metrics"]) == [{"r2": 0.7}]
    assert store.metrics_frame("judge-3").empty

    with pytest.raises(ValueError, match="clash"):
        store.record_metrics(ids[2], "judge-1", {"status": "ok"})
    with pytest.raises(StoreError, match="no prediction 42"):
        store.record_metrics(42, "judge-1", {"r2": 1.0})


def test_record_many_commits_a_batch_in_order(store, campaign, make_key, make_result):
    from srbf.store import Fit

    first = store.record(make_key(1), make_result(1), campaign_id=campaign, data_hash="h")
    with pytest.warns(DuplicateKeyWarning):
        ids = store.record_many(
            [
                Fit(make_key(2), make_result(2), campaign, "h2", inputs_hash="x2"),
                Fit(make_key(1), make_result(1), campaign, "h"),  # already stored: its id comes back
                Fit(make_key(3), make_result(3), campaign, "h3"),
            ]
        )
    assert ids[1] == first and len(set(ids)) == 3
    frame = store.predictions_frame().set_index("id")
    assert list(frame.loc[[ids[0], ids[2]], "data_hash"]) == ["h2", "h3"]
    assert frame.loc[ids[0], "inputs_hash"] == "x2" and pd.isna(frame.loc[ids[2], "inputs_hash"])
    assert store.record_many([]) == []


def test_record_many_writes_all_or_nothing(store, campaign, make_key, make_result):
    from srbf.store import Fit

    with pytest.raises(ValueError, match="status 'done'"):
        store.record_many([Fit(make_key(1), make_result(1), campaign, "h"), Fit(make_key(2), make_result(status="done"), campaign, "h")])
    with pytest.raises(StoreError, match="no campaign 99"):
        store.record_many([Fit(make_key(1), make_result(1), campaign, "h"), Fit(make_key(2), make_result(2), 99, "h")])
    assert store.predictions_frame().empty


def test_record_metrics_many_one_transaction(store, campaign, make_key, make_result):
    a = store.record(make_key(1), make_result(1), campaign_id=campaign, data_hash="h")
    b = store.record(make_key(2), make_result(2), campaign_id=campaign, data_hash="h")
    assert store.record_metrics_many([(a, {"success": 1}), (b, {"success": 0})], "1.0") == 2
    assert store.record_metrics_many([(a, {"success": 0})], "1.0") == 0  # kept
    assert store.record_metrics_many([(a, {"success": 0})], "1.0", replace={a}) == 1
    frame = store.metrics_frame("1.0").set_index("prediction_id")
    assert frame.loc[a, "success"] == 0 and frame.loc[b, "success"] == 0
    with pytest.raises(ValueError, match="clash"):
        store.record_metrics_many([(a, {"method": 1})], "1.0")
