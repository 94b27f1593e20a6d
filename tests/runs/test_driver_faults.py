"""Faults, each with real worker processes: what the store holds after each, and what the user sees."""

from __future__ import annotations

import re

import pytest

from driver_helpers import REPO, campaigns, rows, swiss_config, write_catalog, write_config, write_method
from srbf.runs.config import load_config
from srbf.runs.driver import RunError, run_config
from srbf.runs.local_executor import DEFAULT_MAX_RESTARTS, LocalExecutor


@pytest.mark.slow
def test_every_kind_of_fit_failure_gets_one_row_with_its_status(tmp_path):
    modes = ["raise", "no_expression", "garbage", "unparseable", "megabytes", "sleep", "suicide", "ok"]
    path = swiss_config(tmp_path, n=2, time_limit=2, sweeps=[{"option": "mode", "values": modes}])
    config = load_config(path)
    summary = run_config(config, progress=False)
    assert summary.recorded == 16 and not summary.interrupted
    stored = rows(tmp_path / "results")
    assert len(stored) == 16 and len({(r[9], r[2]) for r in stored}) == 16
    label = {v.config_hash: dict(v.swept)["mode"] for v in config.variants()}
    got = {(label[r[9]], r[2]): (r[5], r[6], r[7] or "") for r in stored}
    for mode in modes:  # problem 2 of every mode is fine: the worker recovered or was restarted
        assert got[(mode, "p02")][:2] == ("ok", "x + 2"), mode
    assert got[("raise", "p01")][0] == "failed" and "ValueError: boom" in got[("raise", "p01")][2]
    assert got[("no_expression", "p01")][0] == "failed" and "no 'expression'" in got[("no_expression", "p01")][2]
    assert got[("garbage", "p01")][0] == "failed" and "must return a dict" in got[("garbage", "p01")][2]
    # a formula the parser cannot read is still the method's answer: stored raw, the judge fails it
    assert got[("unparseable", "p01")][:2] == ("ok", "x +* )(")
    assert got[("megabytes", "p01")][:2] == ("ok", "x + 1")
    assert got[("sleep", "p01")][0] == "timeout" and "time limit of 2 s" in got[("sleep", "p01")][2]
    assert got[("suicide", "p01")][0] == "crashed" and "SIGKILL" in got[("suicide", "p01")][2]
    assert got[("ok", "p01")][:2] == ("ok", "x + 1")
    assert summary.statuses == {"ok": 11, "failed": 3, "timeout": 1, "crashed": 1}


@pytest.mark.slow
def test_crashing_every_third_and_hanging_every_fifth(tmp_path):
    path = swiss_config(tmp_path, n=15, time_limit=1, options={"mode": "crash3_hang5"})
    summary = run_config(load_config(path), progress=False)
    stored = rows(tmp_path / "results")
    assert len(stored) == 15 == len({r[2] for r in stored})
    expected = {}
    for k in range(1, 16):
        expected[f"p{k:02d}"] = "crashed" if k % 3 == 0 else "timeout" if k % 5 == 0 else "ok"
    assert {r[2]: r[5] for r in stored} == expected
    assert all(r[6] == f"x + {int(r[2][1:])}" for r in stored if r[5] == "ok")
    assert summary.crashed == 5 and summary.timeouts == 2 and summary.ok == 8
    assert not summary.notes  # never more than a few abnormal ends in a row: no worker was stopped


@pytest.mark.slow
def test_a_worker_that_keeps_dying_is_stopped_and_its_fits_are_recorded_as_crashed(tmp_path):
    path = swiss_config(tmp_path, n=8, options={"mode": "always_crash"})
    notes = []
    with LocalExecutor(2, max_restarts=1, on_note=notes.append) as executor:
        summary = run_config(load_config(path), executor=executor, progress=False, log=notes.append)
    stored = rows(tmp_path / "results")
    assert len(stored) == 8 and {r[5] for r in stored} == {"crashed"}
    not_run = [r for r in stored if r[7].startswith("not run")]
    assert len(not_run) == 4  # each of the 2 workers ran 2 fits (1 restart allowed), then stopped
    assert "every worker for method swiss was stopped after 2 abnormal ends in a row" in not_run[0][7]
    assert len(summary.notes) == 2 and all("stopped running swiss" in n for n in summary.notes)


@pytest.mark.slow
def test_by_default_a_worker_is_stopped_after_the_documented_five_abnormal_ends(tmp_path):
    documented = re.search(r"after (\d+) abnormal ends in a row", (REPO / "docs" / "running.md").read_text())
    assert documented and int(documented.group(1)) == DEFAULT_MAX_RESTARTS + 1 == 5
    path = swiss_config(tmp_path, n=7, workers=1, options={"mode": "always_crash"})
    summary = run_config(load_config(path), progress=False, log=lambda text: None)
    errors = [r[7] for r in rows(tmp_path / "results")]
    assert [e.startswith("the worker process died") for e in errors] == [True] * 5 + [False] * 2
    assert all("stopped after 5 abnormal ends in a row" in e for e in errors[5:])
    assert summary.notes and "after 5 abnormal ends in a row" in summary.notes[0]


@pytest.mark.slow
def test_a_worker_that_cannot_restart_gives_its_fits_back_then_they_are_crashed(tmp_path):
    marker = tmp_path / "started-once"
    path = swiss_config(tmp_path, n=3, workers=1, options={"mode": "crash_then_no_restart",
                                                           "no_restart_after": str(marker)})  # fmt: skip
    with LocalExecutor(1, max_restarts=1) as executor:
        summary = run_config(load_config(path), executor=executor, progress=False, log=lambda text: None)
    stored = rows(tmp_path / "results")
    assert [r[5] for r in stored] == ["crashed"] * 3
    assert "exited with code 5" in stored[0][7]
    assert all("could not be (re)started" in r[7] and "cannot start a second time" in r[7] for r in stored[1:])
    assert summary.crashed == 3 and summary.notes


@pytest.mark.slow
def test_a_method_that_raises_on_import_stops_the_run_before_any_fit(tmp_path):
    write_catalog(tmp_path, 2)
    bad = write_method(tmp_path, "import numpy\nraise ImportError('no module named magic')\n", name="bad.py")
    path = write_config(tmp_path, catalogs=[str(tmp_path / "faults.yaml")],
                        method={"name": "bad", "adapter": {"type": "file", "path": str(bad)}})  # fmt: skip
    with pytest.raises(RunError, match=r"bad: method .*bad\.py failed to start: ImportError: no module named magic"):
        run_config(load_config(path), progress=False)
    assert rows(tmp_path / "results") == [] and campaigns(tmp_path / "results") == []


@pytest.mark.slow
def test_a_setup_that_raises_and_a_method_file_that_vanished(tmp_path):
    path = swiss_config(tmp_path, n=2, options={"setup": "raise"})
    with pytest.raises(RunError, match="setup exploded"):
        run_config(load_config(path), progress=False)
    config = load_config(swiss_config(tmp_path, n=2))
    variants = config.variants()
    (tmp_path / "swiss.py").unlink()  # after the config was read: the worker cannot start
    with pytest.raises(RunError, match=r"swiss\.py does not exist"):
        run_config(config, variants=variants, progress=False)
    assert rows(tmp_path / "results") == [] and campaigns(tmp_path / "results") == []


def test_a_method_environment_that_is_not_installed_stops_the_run_before_any_fit(tmp_path, monkeypatch):
    monkeypatch.setenv("SRBF_HOME", str(tmp_path / "home"))  # no method environments there
    write_catalog(tmp_path, 2)
    method = write_method(tmp_path)
    path = write_config(tmp_path, catalogs=[str(tmp_path / "faults.yaml")],
                        method={"name": "swiss", "adapter": {"type": "file", "path": str(method)},
                                "python": "env:gplearn"})  # fmt: skip
    with pytest.raises(RunError) as error:
        run_config(load_config(path), progress=False)
    assert str(error.value) == "gplearn is not installed: run srbf methods install gplearn"
    assert not (tmp_path / "results").exists()  # the pre-checks come before the store


@pytest.mark.parametrize("user_error", [True, False])
@pytest.mark.slow
def test_a_setup_error_marked_as_the_users_is_one_line_without_a_traceback(tmp_path, user_error):
    write_catalog(tmp_path, 1)
    source = (
        "class BadOption(ValueError):\n"
        f"    user_error = {user_error}\n"
        "def setup(options):\n"
        "    raise BadOption('m: options.model: /nowhere is not a directory')\n"
        "def fit(X, y, **kwargs):\n"
        "    return '0'\n"
    )
    bad = write_method(tmp_path, source, name="bad.py")
    path = write_config(tmp_path, catalogs=[str(tmp_path / "faults.yaml")],
                        method={"name": "bad", "adapter": {"type": "file", "path": str(bad)}})  # fmt: skip
    with pytest.raises(RunError, match=r"failed to start: BadOption: m: options.model: /nowhere is not a directory") as info:
        run_config(load_config(path), progress=False, log=lambda text: None)
    assert ("Traceback" in str(info.value)) is not user_error
