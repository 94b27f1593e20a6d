"""The first result fast: each method's workers start when its first fit is due, with real workers."""

from __future__ import annotations

import time

import pytest

from driver_helpers import campaigns, rows, write_catalog, write_config, write_method
from srbf.runs.config import load_config
from srbf.runs.driver import RunError, run_config
from srbf.runs.local_executor import LocalExecutor
from srbf.runs.plan import worker_spec

METHOD = """
import time

def setup(options):
    time.sleep(options.get("setup_seconds", 0))
    if options.get("broken"):
        raise RuntimeError("setup exploded on purpose")

def fit(X, y, *, budget, seed, variables, options, report):
    return {"expression": "x + 1"}
"""


def config_file(tmp_path, methods: dict[str, dict], workers: int, n: int = 2):
    """A config of file methods named as ``methods``' keys with those options, on ``n`` problems."""
    catalog = write_catalog(tmp_path, n)
    method = write_method(tmp_path, METHOD, name="quick.py")
    entries = [{"name": name, "adapter": {"type": "file", "path": str(method)}, "options": options}
               for name, options in methods.items()]  # fmt: skip
    return write_config(tmp_path, catalogs=[str(catalog)], methods=entries, budgets=[1], workers=workers,
                        sampling={"n_support": 32, "n_validation": 32, "draws": 1})  # fmt: skip


def test_start_returns_when_the_first_slot_is_ready_and_each_slot_begins_with_its_own_method(tmp_path):
    config = load_config(config_file(tmp_path, {"quick": {}, "slow": {"setup_seconds": 6}}, workers=2))
    quick, slow = (worker_spec(v) for v in config.variants())
    from srbf.runs.plan import make_plan
    from srbf.runs.problems import fit_order

    plan = make_plan(config)
    with LocalExecutor(2) as executor:
        began = time.monotonic()
        executor.start([quick, slow])
        assert time.monotonic() - began < 5  # the slow method's setup alone takes 6 s
        order = lambda fit: fit_order(fit, config=config, secret=b"k" * 32)  # noqa: E731
        arrived = [done for batch in executor.run(plan.fits, order) for done in batch]
    assert [done.fit.spec for done in arrived[:2]] == [quick, quick]  # the quick slot's fits came first
    assert {done.result.status for done in arrived} == {"ok"} and len(arrived) == 4


def test_a_later_method_that_cannot_start_stops_the_run_before_its_first_fit_and_a_rerun_resumes(tmp_path):
    path = config_file(tmp_path, {"good": {}, "bad": {"broken": True}}, workers=1)
    with pytest.raises(RunError) as error:
        run_config(load_config(path), progress=False)
    first = str(error.value).splitlines()[0]
    assert first.startswith("bad: ") and "setup exploded on purpose" in first
    assert first.endswith("(the run stopped before its first fit; 2 fit(s) of this run are stored; "
                          "run again to resume once it starts)")  # fmt: skip
    stored = rows(tmp_path / "results")
    assert [r[5] for r in stored] == ["ok", "ok"] and len(campaigns(tmp_path / "results")) == 2
    fixed = config_file(tmp_path, {"good": {}, "bad": {}}, workers=1)  # bad's options change: a new configuration
    summary = run_config(load_config(fixed), progress=False)
    assert summary.skipped == 2 and summary.statuses == {"ok": 2}


def test_a_first_method_that_cannot_start_stops_the_run_with_nothing_recorded(tmp_path):
    path = config_file(tmp_path, {"good": {"setup_seconds": 5}, "bad": {"broken": True}}, workers=2)
    with pytest.raises(RunError, match=r"^bad: .*setup exploded on purpose \(nothing was run\)"):
        run_config(load_config(path), progress=False)
    assert rows(tmp_path / "results") == [] and campaigns(tmp_path / "results") == []


def test_progress_names_each_method_as_its_workers_start(tmp_path, capsys):
    path = config_file(tmp_path, {"first": {}, "second": {}}, workers=1)
    run_config(load_config(path), progress=True)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "starting" in line]
    assert len(lines) == 2, err
    assert lines[0].startswith("srbf: starting first (") and lines[0].endswith(")...")
    assert lines[1].startswith("srbf: starting second (")
    assert err.index("starting first") < err.index("starting second")


def test_no_progress_lines_without_the_bar(tmp_path, capsys):
    path = config_file(tmp_path, {"first": {}, "second": {}}, workers=1)
    run_config(load_config(path), progress=False)
    assert "starting" not in capsys.readouterr().err
