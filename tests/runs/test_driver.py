"""Planner, executor and driver on real worker processes: order, resume, placeholders, the truth."""

from __future__ import annotations

import functools
import multiprocessing
import pickle

import numpy as np
import pytest

from driver_helpers import campaigns, rows, swiss_config, write_catalog, write_config, write_method
from srbf.runs.config import config_from_dict, load_config
from srbf.runs.driver import RunError, apply_overrides, filter_variants, run_config
from srbf.runs.status import collect_status
from srbf.runs.local_executor import LocalExecutor
from srbf.runs.plan import make_plan
from srbf.runs.problems import Placeholder, ProblemSource, fit_order
from srbf.runs.replay import Rows
from srbf.core import FitTask
from srbf.methods import isolation


def small_config(tmp_path, **changes):
    document = {
        "experiment": "small",
        "catalogs": ["nguyen"],
        "limit": 3,
        "sampling": {"n_support": 64, "n_validation": 32, "draws": 2},
        "methods": [
            {"name": "linear", "budgets": [1], "config_provenance": "upstream_default"},
            {"name": "oracle", "budgets": [1, 2], "config_provenance": "upstream_default"},
        ],
        "results": str(tmp_path / "results"),
        "workers": 2,
    }
    document.update(changes)
    return config_from_dict(document)


def test_plan_order_counts_and_skipping(tmp_path):
    config = small_config(tmp_path)
    plan = make_plan(config)
    assert plan.planned == 3 * 2 * 1 + 3 * 2 * 2 == len(plan.fits)
    order = [(f.key.method, f.key.problem_id, f.key.draw, f.key.budget) for f in plan.fits]
    # variant > catalog > problem > draw > condition > budget
    assert order[:6] == [("linear", f"Nguyen-{p}", d, 1) for p in (1, 2, 3) for d in (0, 1)]
    assert order[6:10] == [("oracle", "Nguyen-1", 0, 1), ("oracle", "Nguyen-1", 0, 2),
                           ("oracle", "Nguyen-1", 1, 1), ("oracle", "Nguyen-1", 1, 2)]  # fmt: skip
    assert make_plan(config).keys == plan.keys  # deterministic
    assert plan.counts["nguyen"].planned == 18
    done = set(plan.keys[::3])
    again = make_plan(config, done=done)
    assert again.skipped == len(done) and again.pending == 18 - len(done)
    assert not done & {f.key for f in again.fits}
    assert again.counts["nguyen"].stored == len(done)


def test_tasks_carry_support_points_only_and_the_truth_only_for_the_oracle(tmp_path):
    config = small_config(tmp_path)
    plan = make_plan(config)
    source = ProblemSource(config)
    for fit in plan.fits:
        order = fit_order(fit, config, secret=b"secret")
        task = pickle.loads(pickle.dumps(source.prepare(pickle.loads(pickle.dumps(order)))))  # as a slot gets it
        assert isinstance(task, FitTask) and task.method_seed == isolation.method_seed(b"secret", fit.key)
        problem = source.problem(fit)
        assert task.X.shape == (64, 1) and np.array_equal(task.X, problem.X_support)
        assert task.data_hash == problem.data_hash and task.inputs_hash == problem.inputs_hash
        if fit.key.method == "oracle":
            assert task.options["truth"] == fit.entry.formula
        else:
            assert "truth" not in task.options
    # the rungs of one draw share one sampled problem; the order carries no points
    a, b = [f for f in plan.fits if f.key.method == "oracle"][:2]
    assert source.problem(a) is source.problem(b)
    assert not any(isinstance(value, np.ndarray) for value in vars(fit_order(a, config)).values())


@pytest.mark.slow
def test_a_small_run_records_every_fit_and_resumes(tmp_path):
    config = small_config(tmp_path, limit=2, sampling={"n_support": 64, "n_validation": 32, "draws": 1}, workers=1)
    summary = run_config(config, progress=False)
    assert summary.recorded == summary.pending == 6 and summary.ok == 6 and not summary.interrupted
    stored = rows(tmp_path / "results")
    assert len(stored) == 6 and {r[5] for r in stored} == {"ok"}
    cs = campaigns(tmp_path / "results")
    assert [c[1] for c in cs] == ["small", "small"] and {c[3] for c in cs} == {"upstream_default"}
    # the oracle's records say it saw the truth
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(tmp_path / "results") as store:
        frame = store.predictions_frame()
        campaign_frame = store.campaigns_frame()
    assert all(i.get("sees_truth") is True for i in frame[frame.method == "oracle"].internals)
    assert not any("sees_truth" in i for i in frame[frame.method == "linear"].internals)
    config_record = campaign_frame.config.iloc[0]
    assert config_record["variant"]["method"] == "linear" and config_record["run"]["experiment"] == "small"
    assert campaign_frame.srbf_version.notna().all() and campaign_frame.hostname.notna().all()
    # every fit stores the hashes of the points it was given: all arrays, and the inputs alone
    from srbf.store import row_key

    source = ProblemSource(config)
    sampled = {fit.key: source.problem(fit) for fit in make_plan(config).fits}
    for row in frame.itertuples():
        problem = sampled[row_key(row)]
        assert (row.data_hash, row.inputs_hash) == (problem.data_hash, problem.inputs_hash)

    again = run_config(config, progress=False)
    assert again.recorded == 0 and again.skipped == 6 and not again.campaigns
    assert not multiprocessing.active_children()  # the slot processes started while planning are gone
    assert len(rows(tmp_path / "results")) == 6
    with pytest.raises(RunError, match="already stored"):
        run_config(config, progress=False, resume=False)
    status, _, exists = collect_status(config)
    assert exists and sum(r.planned for r in status) == 6 and all(r.pending == 0 for r in status)


@pytest.mark.slow
def test_a_larger_config_reuses_stored_fits(tmp_path):
    path = swiss_config(tmp_path, n=3, draws=1, budgets=(1, 2))
    first = run_config(load_config(path), progress=False)
    assert first.recorded == 6
    status, _, _ = collect_status(load_config(swiss_config(tmp_path, n=4, draws=2, budgets=(1, 2))))
    assert sum(r.stored for r in status) == 6 and sum(r.pending for r in status) == 10
    more = run_config(load_config(tmp_path / "run.yaml"), progress=False)  # 4 problems, 2 draws now
    assert more.skipped == 6 and more.recorded == 10
    stored = rows(tmp_path / "results")
    assert len(stored) == 16 and len({r[2:5] for r in stored}) == 16


@pytest.mark.slow
def test_placeholders_are_recorded_without_running_the_method(tmp_path):
    catalog = tmp_path / "holes.yaml"
    catalog.write_text(
        "srbf_catalog: 1\nname: holes\nversion: 1\nproblems:\n"
        "- id: fine\n  formula: x + 1\n  variables: [{name: x, range: [0, 1]}]\n"
        "- id: nowhere\n  formula: log(x - 5)\n  variables: [{name: x, range: [0, 1]}]\n"
    )
    method = write_method(tmp_path)
    log = tmp_path / "fits.log"
    path = write_config(
        tmp_path,
        catalogs=[str(catalog)],
        sampling={"n_support": 16, "n_validation": 16, "draws": 1},
        method={"name": "swiss", "adapter": {"type": "file", "path": str(method)}, "budgets": [1, 2],
                "env": {"SRBF_TEST_LOG": str(log)}},
        workers=1,
    )
    summary = run_config(load_config(path), progress=False)
    stored = rows(tmp_path / "results")
    assert sorted((r[2], r[4], r[5]) for r in stored) == [
        ("fine", 1, "ok"), ("fine", 2, "ok"), ("nowhere", 1, "placeholder"), ("nowhere", 2, "placeholder")
    ]
    assert all(r[7] for r in stored if r[5] == "placeholder")  # the reason is recorded
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(tmp_path / "results") as store:
        assert store.predictions_frame()["inputs_hash"].str.len().eq(64).all()  # placeholders too
        checker = Rows(store.campaign_rows(), store.stored_secret())
        assert [checker.problem(row) for row in store.prediction_rows()] == [None] * 4  # a merge accepts them
    assert summary.placeholders == 2 and summary.ok == 2
    assert len(log.read_text().splitlines()) == 2  # the method ran on the fine problem only


def test_overrides_and_sweep_filter(tmp_path):
    config = small_config(tmp_path)
    changed = apply_overrides(config, experiment="other", limit=1, workers=1, results=tmp_path / "r2")
    assert (changed.experiment, changed.limit, changed.workers) == ("other", 1, 1)
    assert make_plan(changed).planned == 6
    with pytest.raises(RunError):
        apply_overrides(config, experiment="bad name")
    assert [v.name for v in filter_variants(config.variants(), ["method=oracle"])] == ["oracle"]
    swept = config_from_dict({
        "experiment": "s", "catalogs": "nguyen", "method": "prior",
        "sweeps": [{"option": "max_depth", "values": [2, 3], "axis": "shape"},
                   {"option": "max_size", "values": [7, 15], "axis": "shape"}],
    })  # fmt: skip
    assert [v.label for v in filter_variants(swept.variants(), ["max_depth=3"])] == ["prior[max_depth=3, max_size=15]"]
    assert len(filter_variants(swept.variants(), ["shape=7"])) == 1
    assert len(filter_variants(swept.variants(), ["max_depth=2", "max_depth=3"])) == 2
    with pytest.raises(RunError, match="no variant matches"):
        filter_variants(swept.variants(), ["max_depth=9"])
    with pytest.raises(RunError, match="not swept"):
        filter_variants(swept.variants(), ["depth=3"])


@pytest.mark.slow
def test_executor_yields_one_result_per_fit_with_one_worker(tmp_path):
    config = load_config(swiss_config(tmp_path, n=5, workers=1, budgets=(1, 2)))
    plan = make_plan(config)
    source = ProblemSource(config)
    with LocalExecutor(1) as executor:
        executor.start([plan.fits[0].spec])
        done = [d for batch in executor.run(plan.fits, functools.partial(fit_order, config=config)) for d in batch]
    assert sorted(d.fit.index for d in done) == list(range(10))
    assert [d.fit.index for d in done] == list(range(10))  # one worker: plan order
    assert all(d.result.status == "ok" and d.result.expression == f"x + {int(d.fit.key.problem_id[1:])}" for d in done)
    assert not isinstance(source.prepare(fit_order(plan.fits[0], config)), Placeholder)


@pytest.mark.slow
def test_progress_bar_is_off_without_a_terminal(tmp_path, capsys):
    config = load_config(swiss_config(tmp_path, n=2))
    run_config(config)  # progress=None: stderr is not a terminal under pytest
    assert "fit/s" not in capsys.readouterr().err


def test_catalog_counts_for_several_catalogs(tmp_path):
    second = write_catalog(tmp_path, 2, name="extra")
    config = config_from_dict({"experiment": "c", "catalogs": ["nguyen", str(second)], "limit": 2,
                               "method": "linear", "budgets": [1], "sampling": {"draws": 1}})  # fmt: skip
    plan = make_plan(config)
    assert {name: c.planned for name, c in plan.counts.items()} == {"nguyen": 2, "extra": 2}


def test_each_slot_begins_with_one_of_the_first_methods_and_the_others_start_later(tmp_path):
    from srbf.runs.driver import _workers_to_start, first_workers
    from srbf.runs.plan import worker_spec

    config = small_config(tmp_path)
    plan = make_plan(config)
    linear, oracle = (worker_spec(v) for v in plan.variants)
    assert _workers_to_start(plan, plan.pending_variants(), 2) == ([linear, oracle], [])
    assert _workers_to_start(plan, plan.pending_variants(), 1) == ([linear], [oracle])
    assert _workers_to_start(plan, plan.pending_variants(), 3) == ([linear, oracle, linear], [])
    one = make_plan(small_config(tmp_path, limit=1, sampling={"n_support": 64, "n_validation": 32, "draws": 1}))
    assert _workers_to_start(one, one.pending_variants(), 8) == ([linear, oracle, oracle], [])  # one linear fit
    assert first_workers(["a", "b", "c"], 2) == ["a", "b"]  # before the plan (prestart): no counts yet
    assert first_workers([], 2) == []


@pytest.mark.slow
def test_the_parent_draws_no_points_the_slot_processes_do(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the parent drew points")

    monkeypatch.setattr(ProblemSource, "draw", refuse)  # in this process only: slots are spawned
    config = small_config(tmp_path, limit=2, sampling={"n_support": 64, "n_validation": 32, "draws": 1}, workers=2)
    summary = run_config(config, progress=False)
    assert summary.recorded == 6 and summary.ok == 6
