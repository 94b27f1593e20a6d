"""The stack behind stored results: the method's on each campaign, the judge's on each metrics row,
and the per-method table ``srbf status`` and the report show."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from srbf.store.schema import JUDGE_STACK_COLUMNS, METHOD_STACK_COLUMNS
from srbf.store.stacks import STACK_HEADER, stack_lines, stack_table

GPLEARN = {
    "method_python_version": "3.12.4",
    "method_package": "gplearn",
    "method_package_version": "0.4.3",
    "method_numpy_version": "1.26.4",
    "method_scipy_version": "1.13.1",
    "method_lock_hash": "sha256:0123456789abcdef0123",
}
JUDGE_A = dict(zip(JUDGE_STACK_COLUMNS, ("3.11.9", "2.1.3", "1.14.1", "1.13.3", "1.3.0")))
JUDGE_B = {**JUDGE_A, "numpy_version": "2.2.0"}


def _campaign(store, method_stack, *, git=("abcdef0123456789", True), name="exp"):
    return store.start_campaign(name, {}, "cfg-1", "upstream_default", git=git, method_stack=method_stack)


def test_a_campaign_keeps_the_method_stack_and_unknown_fields_read_as_none(store):
    first = _campaign(store, GPLEARN)
    second = _campaign(store, {"method_package": "srbf", "method_package_version": "0.1.0"})
    third = _campaign(store, None)
    frame = store.campaigns_frame().set_index("id")
    assert frame.loc[first, list(METHOD_STACK_COLUMNS)].tolist() == list(GPLEARN.values())
    assert frame.loc[second, "method_package"] == "srbf" and pd.isna(frame.loc[second, "method_numpy_version"])
    assert frame.loc[third, list(METHOD_STACK_COLUMNS)].isna().all()


@pytest.mark.parametrize(
    "stack, error, message",
    [
        ({"numpy": "2.0"}, ValueError, "unknown field(s) numpy; fields: method_python_version"),
        ({"method_numpy_version": 2.0}, TypeError, "method_numpy_version must be text or None, got 2.0"),
    ],
)
def test_a_bad_method_stack_is_refused_and_nothing_is_written(store, stack, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        _campaign(store, stack)
    assert store.campaigns_frame().empty


def test_metrics_rows_point_to_one_judge_stack_row_per_distinct_stack(store, campaign, make_key, make_result):
    ids = [store.record(make_key(i), make_result(i), campaign_id=campaign, data_hash="h") for i in range(4)]
    store.record_metrics_many([(ids[0], {"r2": 1.0}), (ids[1], {"r2": 0.5})], "1.0", judge_stack=JUDGE_A)
    store.record_metrics_many([(ids[2], {"r2": 0.1})], "1.0", judge_stack=JUDGE_A)
    store.record_metrics(ids[3], "1.0", {"r2": 0.2}, judge_stack=JUDGE_B)
    store.record_metrics(ids[3], "0.9", {"r2": 0.2})  # no stack given: unknown
    conn = sqlite3.connect(store.path)
    assert conn.execute("SELECT count(*) FROM judge_stacks").fetchone()[0] == 2
    stacks = store.metric_stacks_frame("1.0").set_index("prediction_id")
    assert stacks.loc[ids[0], list(JUDGE_STACK_COLUMNS)].tolist() == list(JUDGE_A.values())
    assert stacks.loc[ids[3], "numpy_version"] == "2.2.0"
    old = store.metric_stacks_frame("0.9")
    assert len(old) == 1 and old[list(JUDGE_STACK_COLUMNS)].isna().all(axis=None)
    # replacing a row moves it to the stack that scored it again
    store.record_metrics_many([(ids[0], {"r2": 0.9})], "1.0", replace={ids[0]}, judge_stack=JUDGE_B)
    assert store.metric_stacks_frame("1.0").set_index("prediction_id").loc[ids[0], "numpy_version"] == "2.2.0"


def test_a_judge_stack_with_a_value_missing_is_refused(store, campaign, make_key, make_result):
    pid = store.record(make_key(0), make_result(0), campaign_id=campaign, data_hash="h")
    with pytest.raises(ValueError, match="a judge stack needs every one of python_version"):
        store.record_metrics_many([(pid, {"r2": 1.0})], "1.0", judge_stack={"numpy_version": "2.1.3"})
    assert store.metrics_frame().empty


def test_the_stack_table_counts_fits_per_method_and_run_stack(store, make_key, make_result):
    old_run = _campaign(store, GPLEARN)
    new_run = _campaign(store, {**GPLEARN, "method_numpy_version": "2.0.0"}, git=None)
    builtin = _campaign(store, {"method_package": "srbf", "method_package_version": "0.1.0"})
    ids = {}
    for i in range(5):  # gplearn: 3 fits in the old run, 2 in the new one
        ids[("g", i)] = store.record(make_key(i, method="gplearn"), make_result(i), data_hash="h",
                                     campaign_id=old_run if i < 3 else new_run)  # fmt: skip
    for i in range(2):
        ids[("l", i)] = store.record(make_key(i), make_result(i), campaign_id=builtin, data_hash="h")
    # old run: two fits scored by judge stack A, one by B; one fit scored by judge 0.9 too (a second row)
    store.record_metrics_many([(ids[("g", 0)], {}), (ids[("g", 1)], {})], "1.0", judge_stack=JUDGE_A)
    store.record_metrics_many([(ids[("g", 2)], {})], "1.0", judge_stack=JUDGE_B)
    store.record_metrics_many([(ids[("g", 0)], {})], "0.9")
    store.record_metrics_many([(ids[("l", 0)], {})], "1.0", judge_stack=JUDGE_A)

    frame = store.stack_frame()
    old = frame[frame["method_numpy_version"] == "1.26.4"]
    assert set(old["fits"]) == {3}
    assert sorted(zip(old["judge_version"], old["judge_numpy_version"].fillna("-"), old["scored"])) == [
        ("0.9", "-", 1), ("1.0", "2.1.3", 2), ("1.0", "2.2.0", 1)]  # fmt: skip
    new = frame[frame["method_numpy_version"] == "2.0.0"]
    assert len(new) == 1 and new["fits"].item() == 2 and new["scored"].item() == 0 and pd.isna(new["judge_version"].item())

    rows, legend = stack_table(frame)
    table = {(row[0], row[5]): dict(zip(STACK_HEADER, row)) for row in rows}
    assert table[("gplearn", "1.26.4")] == {
        "method": "gplearn", "fits": "3", "srbf": f"{frame['srbf_version'][0]} abcdef0123 dirty",
        "python": f"{frame['python_version'][0]} / 3.12.4", "package": "gplearn 0.4.3", "numpy": "1.26.4",
        "scipy": "1.13.1", "lock": "0123456789ab", "judge": "0.9 #1, 1.0 #2, 1.0 #3"}  # fmt: skip
    assert table[("gplearn", "2.0.0")]["judge"] == "not scored"
    assert table[("gplearn", "2.0.0")]["srbf"] == frame["srbf_version"][0]  # no git commit recorded
    assert table[("linear", "?")]["package"] == "srbf 0.1.0" and table[("linear", "?")]["judge"] == "1.0 #2"
    assert legend == [
        "#1 judge 0.9: libraries not recorded",
        "#2 judge 1.0: python 3.11.9, numpy 2.1.3, scipy 1.14.1, sympy 1.13.3, mpmath 1.3.0",
        "#3 judge 1.0: python 3.11.9, numpy 2.2.0, scipy 1.14.1, sympy 1.13.3, mpmath 1.3.0",
    ]
    assert store.stack_frame(method="linear")["fits"].tolist() == [2]
    lines = stack_lines(store.stack_frame(method="linear"))
    assert lines[0].split() == list(STACK_HEADER) and lines[1].split()[:2] == ["linear", "2"]
    assert stack_lines(store.stack_frame(method="nobody")) == []


def test_a_package_not_installed_reads_so_and_a_value_not_recorded_reads_as_a_question_mark(store, make_key, make_result):
    from srbf.methods.stack import NOT_INSTALLED

    without = _campaign(store, {**GPLEARN, "method_scipy_version": NOT_INSTALLED})
    unknown = _campaign(store, {**GPLEARN, "method_numpy_version": "2.0.0", "method_scipy_version": None})
    store.record(make_key(0, method="gplearn"), make_result(0), campaign_id=without, data_hash="h")
    store.record(make_key(1, method="gplearn"), make_result(1), campaign_id=unknown, data_hash="h")
    rows, _ = stack_table(store.stack_frame())
    assert sorted((row[5], row[6]) for row in rows) == [("1.26.4", "not installed"), ("2.0.0", "?")]
