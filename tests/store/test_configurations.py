"""The configurations a store holds: which a reading reads, what differs, and forgetting them."""

from __future__ import annotations

import pandas as pd
import pytest

from srbf.store import ResultsStore
from srbf.store.configurations import (
    ConfigurationError,
    differences,
    match_configurations,
    select_configurations,
    short_hashes,
)

OLD, NEW, OTHER = "a1b2c3d4" + "0" * 56, "c3d4e5f6" + "1" * 56, "77aa88bb" + "2" * 56


def variant(label: str, sha: str, **changes) -> dict:
    record = {"method": label.split("[")[0], "label": label, "options": {"params": {"population_size": 100}},
              "budgets": [1.0, 2.0], "time_limit": 60.0,
              "hash_payload": {"adapter": {"type": "file", "sha256": sha}, "options": {}, "time_limit": 60.0}}  # fmt: skip
    record.update(changes)
    return record


@pytest.fixture
def run(make_key, make_result):
    def run(store: ResultsStore, method: str, config_hash: str, n: int, record: dict, start: int = 0) -> int:
        """One campaign of ``n`` fits of (method, config_hash), each with metrics and a two-step trajectory."""
        campaign = store.start_campaign("exp", {"variant": record}, config_hash, "upstream_default", git=None)
        for i in range(start, start + n):
            pid = store.record(make_key(i, method=method, config_hash=config_hash), make_result(1), campaign_id=campaign,
                               data_hash=f"d{i}")  # fmt: skip
            store.record_metrics(pid, "1.0", {"fvu": 0.1 * i}, judge_stack=stack(method))
        return campaign

    return run


def stack(name: str) -> dict:
    return {"python_version": name, "numpy_version": "2", "scipy_version": "1", "sympy_version": "1", "mpmath_version": "1"}




@pytest.fixture
def edited(store, run):
    """my_poly run, its file edited, run again; linear run once, between the two."""
    run(store, "my_poly", OLD, 3, variant("my_poly", "f" * 64))
    run(store, "linear", OTHER, 2, variant("linear", "e" * 64))
    run(store, "my_poly", NEW, 3, variant("my_poly", "9" * 64, budgets=[1.0, 2.0, 4.0]))
    return store


def test_latest_keeps_the_newest_configuration_of_each_method_and_names_what_it_set_aside(edited):
    configs = edited.configurations()
    assert [(c.label, c.config_hash, c.fits) for c in configs] == [("linear", OTHER, 2), ("my_poly", NEW, 3),
                                                                    ("my_poly", OLD, 3)]  # fmt: skip
    chosen = select_configurations(configs)
    assert chosen.kept == {("linear", OTHER): "linear", ("my_poly", NEW): "my_poly"}
    assert [c.config_hash for c in chosen.set_aside] == [OLD]
    assert "set aside 1 older one(s): my_poly@a1b2c3d4 (3 fit(s)" in chosen.note()


def test_all_shows_older_configurations_under_method_at_hash(edited):
    chosen = select_configurations(edited.configurations(), "all")
    assert chosen.kept[("my_poly", OLD)] == "my_poly@a1b2c3d4" and chosen.kept[("my_poly", NEW)] == "my_poly"
    assert chosen.note() is None
    frame = pd.DataFrame({"method_name": ["my_poly", "my_poly", "linear", "gone"], "method": ["my_poly"] * 2 + ["linear", "gone"],
                          "config_hash": [OLD, NEW, OTHER, OLD]})  # fmt: skip
    read = chosen.apply(frame, method="method_name", label="method")
    assert list(read["method"]) == ["my_poly@a1b2c3d4", "my_poly", "linear"]


def test_a_named_hash_replaces_its_methods_newest_and_others_stay_latest(edited):
    chosen = select_configurations(edited.configurations(), ["a1b2"])
    assert chosen.kept == {("my_poly", OLD): "my_poly", ("linear", OTHER): "linear"}
    assert [c.config_hash for c in chosen.set_aside] == [NEW]
    both = select_configurations(edited.configurations(), ["my_poly@c3d4", "a1b2c3"])
    assert both.kept[("my_poly", NEW)] == "my_poly" and both.kept[("my_poly", OLD)] == "my_poly@a1b2c3d4"


def test_the_configuration_run_last_is_the_newest(edited, run):
    run(edited, "my_poly", OLD, 1, variant("my_poly", "f" * 64), start=10)  # the old one resumed after the new
    assert select_configurations(edited.configurations()).kept[("my_poly", OLD)] == "my_poly"


@pytest.mark.parametrize("choice, message", [
    (["ffff"], "no configuration 'ffff'"),
    (["nosuch@a1b2"], "no method 'nosuch'"),
    (["zz"], "not a method of the store nor a configuration hash"),
    (["latest", "a1b2"], "'latest' and 'all' stand alone"),
])  # fmt: skip
def test_a_choice_the_store_cannot_meet_is_one_line_naming_what_it_holds(edited, choice, message):
    with pytest.raises(ConfigurationError, match=message) as caught:
        select_configurations(edited.configurations(), choice)
    assert "\n" not in str(caught.value)


def test_a_prefix_two_hashes_share_is_refused_and_short_hashes_grow_to_stay_unique(store, run):
    twin = "a1b2c3d4e" + "5" * 55
    run(store, "my_poly", OLD, 1, variant("my_poly", "f" * 64))
    run(store, "my_poly", twin, 1, variant("my_poly", "9" * 64))
    configs = store.configurations()
    with pytest.raises(ConfigurationError, match="names 2 configurations"):
        match_configurations(configs, "my_poly@a1b2")
    assert short_hashes(configs) == {OLD: "a1b2c3d40", twin: "a1b2c3d4e"}


def test_differences_name_the_method_file_options_and_budgets():
    old = variant("m", "f" * 64)
    new = variant("m", "9" * 64, options={"params": {"population_size": 200}, "unary": ["sin"]}, budgets=[1.0])
    assert differences(old, new) == [
        "the method file (sha256 ffffffff -> 99999999)",
        "options.params.population_size (100 -> 200)",
        "options.unary ((none) -> [\"sin\"])",
        "budgets ([1.0, 2.0] -> [1.0])",
    ]
    assert differences(old, old) == [] and differences({}, new) == []


def test_forget_removes_a_configurations_rows_in_one_go_and_nothing_else(edited):
    before = edited.forget_counts({("my_poly", OLD)})
    assert before == {"predictions": 3, "trajectory steps": 6, "metrics rows": 3, "campaigns": 1, "judge stacks": 0}
    assert edited.forget({("my_poly", OLD)}) == before
    assert [(c.method, c.config_hash) for c in edited.configurations()] == [("linear", OTHER), ("my_poly", NEW)]
    assert len(edited.predictions_frame()) == 5 and len(edited.trajectories_frame()) == 10
    assert len(edited.metrics_frame()) == 5 and len(edited.campaigns_frame()) == 2


def test_forget_drops_the_judge_stacks_only_its_metrics_used_and_keeps_shared_campaigns(edited, run, make_key, make_result):
    # linear's metrics were scored under a stack of their own: forgetting linear drops that stack
    assert edited.forget({("linear", OTHER)})["judge stacks"] == 1
    assert {r.python_version for r in edited.metric_stack_rows()} == {"my_poly"}
    # a campaign that also recorded another configuration's fits stays
    campaign = run(edited, "my_poly", NEW, 1, variant("my_poly", "9" * 64), start=20)
    edited.record(make_key(30, method="other", config_hash=OTHER), make_result(0), campaign_id=campaign, data_hash="x")
    edited.forget({("my_poly", NEW)})
    assert campaign in set(edited.campaigns_frame()["id"])
