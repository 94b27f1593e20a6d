"""Every kind of faulty method through ``srbf run``, as a user runs it: real worker processes, one
shared run (a sweep over the faults, then an honest method). The run must complete, each fault
must be recorded with its reason, no row may be lost or duplicated, and later methods must run.
"""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from fault_run import faulty_method, problem_of, srbf, stored, write_config
from fault_table import FAULTS, POISON_STORED, PROMPT, SANITIZED
from leftovers import case_env, left_after, marked

pytestmark = pytest.mark.slow

TIME_LIMIT = 3.0
ORDER = list(FAULTS)


@pytest.fixture(scope="module")
def shared_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faults")
    methods = [faulty_method(ORDER, time_limit=TIME_LIMIT), "linear"]
    config = write_config(folder, methods, problems=2 * len(ORDER))
    marker = folder / "tmp"
    env = case_env(marker)
    assert marked(marker) == []
    done = srbf("run", "-c", str(config), "--quiet", env=env)
    done.left = left_after(marker)  # every process the run started, and every one its methods did
    return folder / "results", done


@pytest.fixture(scope="module")
def records(shared_run):
    """Every stored fit by (method, problem), its text decoded strictly (it must be UTF-8) and its
    internals parsed as standard JSON."""
    results, _ = shared_run
    columns = ["id", "method", "problem_id", "status", "expression", "error", "internals", "stderr_tail", "wall_seconds"]
    conn = sqlite3.connect(f"file:{results / 'srbf.sqlite'}?mode=ro", uri=True)
    rows = []
    for row in stored(results, ", ".join(columns)):
        record = dict(zip(columns, [v.decode("utf-8") if isinstance(v, bytes) else v for v in row]))
        record["internals"] = json.loads(record["internals"], parse_constant=_refuse)
        record["trajectory"] = [e for (e,) in conn.execute(
            "SELECT expression FROM trajectories WHERE prediction_id = ? ORDER BY step", (record["id"],))]  # fmt: skip
        rows.append(record)
    conn.close()
    return rows, {(r["method"], r["problem_id"]): r for r in rows}


def _refuse(name):
    raise AssertionError(f"non-standard JSON constant {name} in a stored internals value")


def committed(records, fault: str) -> dict:
    """The record of the fit that committed ``fault``."""
    return records[1][("faulty", problem_of(ORDER.index(fault), fault=True))]


def test_the_run_completes_with_every_fit_recorded_once(shared_run, records):
    _, done = shared_run
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    rows, by_key = records
    planned = 2 * (2 * len(ORDER))  # the faulty method and the honest one after it, on every problem
    assert f"{planned} of {planned} fit(s) recorded" in done.stdout
    assert len(rows) == planned == len(by_key)  # none lost, none twice


@pytest.mark.parametrize("fault", ORDER)
def test_each_fault_is_recorded_with_its_reason_and_the_worker_recovers(records, fault):
    status, reason = FAULTS[fault]
    record = committed(records, fault)
    assert record["status"] == status, (record["status"], record["error"])
    assert reason in (record["error"] or ""), record["error"]
    if status == "ok":
        assert record["expression"]
    honest = problem_of(ORDER.index(fault), fault=False)
    after = records[1][("faulty", honest)]
    assert (after["status"], after["expression"]) == ("ok", f"x + {int(honest[1:])}"), after["error"]


@pytest.mark.parametrize("fault", sorted(SANITIZED))
def test_repaired_text_is_flagged_in_the_record(records, fault):
    notes = committed(records, fault)["internals"]["srbf_sanitized"]
    assert any(note.startswith(SANITIZED[fault] + ":") for note in notes), notes


def test_only_repaired_records_are_flagged(records):
    rows, _ = records
    flagged = {r["problem_id"] for r in rows if "srbf_sanitized" in r["internals"]}
    assert flagged == {problem_of(ORDER.index(fault), fault=True) for fault in SANITIZED}


def test_the_poison_string_is_stored_repaired_in_each_of_its_places(records):
    assert committed(records, "poison_expression")["expression"] == POISON_STORED
    assert POISON_STORED in committed(records, "poison_report")["trajectory"]
    assert committed(records, "poison_internals_value")["internals"]["note"] == POISON_STORED
    assert committed(records, "poison_internals_key")["internals"][POISON_STORED] == 1
    assert "PoisonError: bad " + POISON_STORED in committed(records, "raise_poison")["error"]
    assert "\ufffd" in committed(records, "poison_stdout")["stderr_tail"]  # invalid bytes on stdout
    late = committed(records, "thread_reports_after_return")
    assert late["trajectory"] == [late["expression"]]  # a report after fit() returned is not part of the fit


def test_sizes_are_capped(records):
    flood = committed(records, "trajectory_flood")
    assert len(flood["trajectory"]) == 10_000 and flood["trajectory"][-1] == flood["expression"]
    assert any("20,001 reports" in note for note in flood["internals"]["srbf_sanitized"])
    assert len(committed(records, "raise_huge_message")["error"]) < 10_000
    for fault in ("expression_huge", "internals_huge", "report_huge"):
        assert committed(records, fault)["internals"] == {} and committed(records, fault)["expression"] is None


def test_nan_in_internals_is_stored_as_standard_json_and_read_back_as_nan(shared_run, records):
    record = committed(records, "internals_nan")
    assert record["internals"] == {"loss": "NaN", "bounds": ["-Infinity", "Infinity"]}
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(shared_run[0]) as store:
        frame = store.predictions_frame()
    internals = frame.set_index("id").loc[record["id"], "internals"]
    assert math.isnan(internals["loss"]) and internals["bounds"] == [-math.inf, math.inf]
    assert committed(records, "fit_seconds_nan")["internals"]["fit_seconds"] == "NaN"  # kept, not taken as a time


@pytest.mark.parametrize("fault", sorted(PROMPT))
def test_a_broken_channel_is_recorded_at_once_not_after_the_time_limit(records, fault):
    assert committed(records, fault)["wall_seconds"] < TIME_LIMIT / 2


def test_nothing_the_run_or_its_methods_started_is_left_running(shared_run):
    assert shared_run[1].left == []  # fork_and_linger, kill_guard (a process in its own session) included


def test_later_methods_still_run(records):
    rows, _ = records
    assert [r["status"] for r in rows if r["method"] == "linear"] == ["ok"] * (2 * len(ORDER))


def test_a_poisoned_setup_error_stops_the_run_with_its_reason(tmp_path):
    method = tmp_path / "bad_setup.py"
    method.write_text("def setup(options):\n    raise RuntimeError('no \\ud800 here')\n\n"
                      "def fit(X, y, *, budget, seed, variables, options, report):\n    return {'expression': 'x'}\n")  # fmt: skip
    config = write_config(tmp_path, [{"name": "bad", "adapter": {"type": "file", "path": str(method)}}], problems=2)
    done = srbf("run", "-c", str(config), "--quiet")
    assert done.returncode == 2 and "UnicodeEncodeError" not in done.stderr
    first, *method_traceback = done.stderr.splitlines()  # the error, then the method's own traceback
    assert first.startswith("srbf: error: bad") and "RuntimeError: no \ufffd here (nothing was run)" in first
    assert not (tmp_path / "results" / "srbf.sqlite").exists() or not stored(tmp_path / "results", "id")


@pytest.mark.parametrize(
    "fault, step",
    [("poison_expression", "parse"), ("raise_poison", "fit"), ("poison_report", None)],
)
def test_check_reports_poisoned_text_without_crashing(tmp_path, fault, step):
    config = write_config(tmp_path, [faulty_method([fault])], problems=2)
    done = srbf("check", "-c", str(config))
    assert "UnicodeEncodeError" not in done.stdout + done.stderr and not done.stderr  # srbf itself did not fail
    if step is None:
        assert done.returncode == 0 and "check passed" in done.stdout
    else:
        assert done.returncode == 1 and f"FAILED  {step}" in done.stdout and POISON_STORED in done.stdout


def test_limits_are_configurable_per_method(tmp_path):
    limits = {"expression_bytes": 6, "internals_bytes": 30, "trajectory_rows": 2}
    faults = ["internals_nan", "trajectory_flood", "expression_huge"]
    config = write_config(tmp_path, [faulty_method(faults, limits=limits)], problems=6)
    done = srbf("run", "-c", str(config), "--quiet")
    assert done.returncode == 0, done.stderr
    got = {p.decode(): (s.decode(), (e or b"").decode()) for p, s, e in stored(tmp_path / "results", "problem_id, status, error")}
    size = len('{"loss":NaN,"bounds":[-Infinity,Infinity]}')
    assert got["p001"] == ("failed", f"the internals' JSON is {size} B, over the limit of 30 B (limits.internals_bytes)")
    assert got["p003"] == ("ok", "")
    assert got["p005"][0] == "failed" and "over the limit of 6 B (limits.expression_bytes)" in got["p005"][1]
    assert [got[f"p00{k}"] for k in (2, 4, 6)] == [("ok", "")] * 3
    conn = sqlite3.connect(tmp_path / "results" / "srbf.sqlite")
    (rows,) = conn.execute("SELECT count(*) FROM trajectories t JOIN predictions p ON p.id = t.prediction_id"
                           " WHERE p.problem_id = 'p003'").fetchone()  # fmt: skip
    conn.close()
    assert rows == 2
