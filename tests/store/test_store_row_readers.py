"""The store's plain row readers (``ResultsStore.*_rows``): what the scoring pass plans from without pandas."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from srbf.store.row_readers import PREDICTION_COLUMNS
from srbf.store.schema import JUDGE_STACK_COLUMNS

STACK = {column: f"{i}.0" for i, column in enumerate(JUDGE_STACK_COLUMNS)}


def test_prediction_rows_are_the_frames_rows_with_none_for_null(store, campaign, make_key, make_result):
    ids = [store.record(make_key(i), make_result(i, wall_seconds=math.nan if i == 1 else 1.5), campaign_id=campaign,
                        data_hash=f"h{i}") for i in range(3)]  # fmt: skip
    rows = store.prediction_rows()
    frame = store.predictions_frame(decode_json=False)
    assert [row.id for row in rows] == ids == frame["id"].tolist()
    assert rows[0]._fields == PREDICTION_COLUMNS
    assert rows[1].wall_seconds is None and math.isnan(frame.loc[1, "wall_seconds"])  # NULL: None here, NaN there
    assert rows[2].internals == frame.loc[2, "internals"]  # JSON text, not decoded
    picked = store.prediction_rows(("id", "seed"), seed=[0, 2])
    assert [(row.id, row.seed) for row in picked] == [(ids[0], 0), (ids[2], 2)]


def test_a_bad_column_or_filter_is_a_one_line_error(store):
    with pytest.raises(ValueError, match="no prediction column"):
        store.prediction_rows(("id", "colour"))
    with pytest.raises(ValueError, match="cannot filter predictions by 'expression'"):
        store.prediction_rows(expression="x0")


def test_trajectory_campaign_metric_and_stack_rows(store, campaign, make_key, make_result):
    ids = [store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h") for i in range(3)]
    steps = store.trajectory_rows(prediction_id=[ids[1]])
    assert [(s.prediction_id, s.step, s.seconds, s.expression) for s in steps] == [(ids[1], 0, 0.0, "x0 + 0"),
                                                                                   (ids[1], 1, 0.1, "x0 + 1")]  # fmt: skip
    assert len(store.trajectory_rows()) == len(store.trajectories_frame())
    (only,) = store.campaign_rows()
    assert only.id == campaign and only.config == {"methods": ["linear"]}  # decoded
    store.record_metrics_many([(ids[0], {"r2": 1.0})], "1.0", judge_stack=STACK)
    store.record_metrics(ids[1], "1.0", {"r2": math.inf})
    metrics = store.metric_rows("1.0")
    assert [(m.prediction_id, m.method, m.metrics) for m in metrics] == [(ids[0], "linear", '{"r2":1.0}'),
                                                                         (ids[1], "linear", '{"r2":"Infinity"}')]  # fmt: skip
    stacks = store.metric_stack_rows("1.0")
    assert [s.prediction_id for s in stacks] == ids[:2]
    assert [getattr(stacks[0], c) for c in JUDGE_STACK_COLUMNS] == list(STACK.values())
    assert all(getattr(stacks[1], c) is None for c in JUDGE_STACK_COLUMNS)  # scored with no stack recorded
    assert store.metric_stack_rows("0.9") == []


@pytest.mark.slow
def test_reading_rows_imports_no_pandas(store, campaign, make_key, make_result):
    store.record(make_key(0), make_result(0), campaign_id=campaign, data_hash="h")
    script = (
        "import sys\nfrom srbf.store import ResultsStore\n"
        f"s = ResultsStore.open_readonly({str(store.path)!r})\n"
        "s.prediction_rows(); s.trajectory_rows(); s.campaign_rows(); s.metric_rows(); s.metric_stack_rows()\n"
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"
