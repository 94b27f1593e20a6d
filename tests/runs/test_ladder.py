"""One fit, the whole ladder (srbf.runs.ladder): rungs read from the long fit's budget marks,
through the real driver and worker processes, with failures and resume."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from srbf.core import FitResult
from srbf.runs.config import config_from_dict
from srbf.runs.driver import run_config
from srbf.runs.ladder import rung_result
from srbf.runs.shards import Shard
from srbf.store import ResultsStore

# A method with an exact trajectory by construction: generation g draws the g-th number of a
# stream seeded by the fit's seed, so a fit of budget g ends where the long fit was at step g.
METHOD = textwrap.dedent('''
    import random

    def fit(X, y, *, budget, seed, variables, options, report):
        rng = random.Random(seed)
        best = None
        for g in range(1, int(budget) + 1):
            if g == options.get("fail_at"):
                raise RuntimeError("gave up at generation %d" % g)
            if g <= options.get("stop_at", g):
                best = "%s*%r" % (variables[0], round(rng.random(), 6))
            report(best, budget=g)
            if g == options.get("stop_at"):
                break
        return {"expression": best}
''')


def _config(tmp_path, budgets, ladder="one_fit", **options) -> dict:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "stream.py").write_text(METHOD)
    return config_from_dict({
        "experiment": "ladder", "catalogs": "nguyen", "limit": 2, "workers": 1, "seed": 3,
        "results": str(tmp_path / "results"), "sampling": {"draws": 1, "n_support": 32, "n_validation": 16},
        "methods": [{"name": "stream", "adapter": {"type": "file", "path": str(tmp_path / "stream.py")},
                     "budgets": budgets, "ladder": ladder, "options": options}]})  # fmt: skip


def _rows(tmp_path) -> dict:
    with ResultsStore(tmp_path / "results") as store:
        frame = store.predictions_frame()
    return {(r.problem_id, int(r.budget)): r for r in frame.itertuples()}


QUIET = {"progress": False, "log": lambda note: None}


def test_a_ladder_is_one_fit_and_its_rungs_are_what_separate_fits_return(tmp_path):
    # one secret for both stores (the method seeds are derived under it), as shards share one
    shared = {**QUIET, "shard": Shard.parse("1/1"), "secret_file": tmp_path / "secret"}
    one = run_config(_config(tmp_path / "one", [1, 2, 4]), **shared)
    apart = run_config(_config(tmp_path / "apart", [1, 2, 4], ladder="separate"), **shared)
    assert one.ok == apart.ok == 6
    rows, fitted = _rows(tmp_path / "one"), _rows(tmp_path / "apart")
    assert {k: r.expression for k, r in rows.items()} == {k: r.expression for k, r in fitted.items()}
    assert len({r.expression for r in rows.values()}) == 6  # each rung its own incumbent
    for key, row in rows.items():
        long = rows[(key[0], 4)]
        assert row.from_trajectory == (key[1] < 4) and not fitted[key].from_trajectory
        if row.from_trajectory:  # CPU and memory are not measured per budget step
            assert pd.isna(row.cpu_seconds) and pd.isna(row.peak_memory_bytes)
            assert 0 < row.wall_seconds <= long.wall_seconds and row.data_hash == long.data_hash


def test_a_failed_long_fit_keeps_the_rungs_it_reached(tmp_path):
    summary = run_config(_config(tmp_path, [1, 2, 4, 8], fail_at=3), **QUIET)
    rows = _rows(tmp_path)
    for (problem, budget), row in rows.items():
        assert row.status == ("ok" if budget <= 2 else "failed"), (budget, row.status, row.error)
        assert row.from_trajectory == (budget < 8)
    assert "gave up at generation 3" in rows[(next(iter(rows))[0], 4)].error
    assert summary.ok == 4 and summary.failed == 4


def test_a_method_that_stops_early_gives_the_higher_rungs_its_answer(tmp_path):
    run_config(_config(tmp_path, [1, 2, 4, 8], stop_at=2), **QUIET)
    rows = _rows(tmp_path)
    for (problem, budget), row in rows.items():
        assert row.status == "ok" and row.expression == rows[(problem, 2 if budget >= 2 else 1)].expression


def test_a_resumed_run_fits_only_what_is_missing(tmp_path):
    run_config(_config(tmp_path, [1, 2]), **QUIET)
    before = _rows(tmp_path)
    summary = run_config(_config(tmp_path, [1, 2, 4, 8]), **QUIET)
    after = _rows(tmp_path)
    assert summary.skipped == 4 and summary.ok == 4
    assert all(after[key].id == row.id for key, row in before.items())  # nothing stored was redone
    assert [after[(p, b)].from_trajectory for p, _ in before for b in (4, 8)][:2] == [True, False]


def test_rung_result_reads_the_mark_of_its_budget():
    long = FitResult("ok", expression="x*3", wall_seconds=3.0, cpu_seconds=2.5, peak_memory_bytes=10,
                     trajectory=[(0.5, "x*1"), (1.5, "x*2"), (2.9, "x*3")],
                     marks=[(1.0, 1.0, "x*1"), (2.0, 1.5, "x*2"), (2.0, 1.6, "x*2"), (4.0, 2.9, "x*3")])  # fmt: skip
    rung = rung_result(long, 4, 2)
    assert (rung.status, rung.expression, rung.wall_seconds) == ("ok", "x*2", 1.6)  # the last mark of budget 2
    assert rung.cpu_seconds is None and rung.peak_memory_bytes is None and rung.from_trajectory
    assert rung.trajectory == [(0.5, "x*1"), (1.5, "x*2")] and rung.internals == {"ladder_fit_budget": 4}
    timed_out = FitResult("timeout", error="over 60 s", wall_seconds=60.0, marks=[(1.0, 1.0, "x*1")])
    assert rung_result(timed_out, 4, 1.0).status == "ok"
    missed = rung_result(timed_out, 4, 2)
    assert missed.status == "timeout" and missed.expression is None and "before budget 2 was reached: over 60 s" in missed.error


@pytest.mark.parametrize("ladder", ["one_fit", "separate"])
def test_the_ladder_field_is_checked(tmp_path, ladder):
    assert _config(tmp_path, [1, 2], ladder=ladder).methods[0].ladder == ladder


def test_a_bad_ladder_value_names_the_field(tmp_path):
    from srbf.runs.config import ConfigError

    with pytest.raises(ConfigError, match=r"ladder.*one_fit, separate, got 'one'; did you mean 'one_fit'\?"):
        _config(tmp_path, [1, 2], ladder="one")


def test_a_long_fit_without_budget_marks_fails_its_rungs_instead_of_making_them_up():
    long = FitResult("ok", expression="x*3", wall_seconds=3.0, trajectory=[(2.9, "x*3")])  # no report(..., budget=b)
    rung = rung_result(long, 4, 2)
    assert (rung.status, rung.expression) == ("failed", None)
    assert "reported no budget marks" in rung.error and "ladder: separate" in rung.error


@pytest.mark.parametrize("entry", [
    {"name": "operon", "ladder": "one_fit"},  # a roster method that does not declare exact_trajectory
    {"name": "prior", "ladder": "one_fit"},  # a built-in: it reports no budget marks
])
def test_one_fit_is_refused_for_a_method_that_reports_no_exact_trajectory(tmp_path, entry):
    from srbf.runs.config import ConfigError

    with pytest.raises(ConfigError, match=r"methods\[0\]\.ladder: one_fit .* use separate"):
        config_from_dict({"experiment": "x", "catalogs": "nguyen", "results": str(tmp_path / "r"), "methods": [entry]})


def test_one_fit_is_what_a_declaring_roster_method_gets():
    config = config_from_dict({"experiment": "x", "catalogs": "nguyen", "methods": ["gplearn", "operon"]})
    assert [m.ladder for m in config.methods] == ["one_fit", "separate"]
