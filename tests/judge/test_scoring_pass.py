"""The scoring pass over a results store: metrics per prediction, failures, resume, data checks, CLI."""

from __future__ import annotations

import gc
import json
import math
import shutil
import sqlite3
import subprocess
import sys
import warnings

import pandas as pd
import pytest

from srbf.catalogs.loader import load_catalog
from srbf.catalogs.sampling import sample_problem
from srbf.cli import main
from srbf.judge import AXIS_KEYS, JUDGE_VERSION, METRIC_KEYS, problem_scoring, scoring_pass
from srbf.judge.checkpoints import checkpoint_times
from srbf.judge.scoring_pass import ScoringError, score_store
import srbf.core
from srbf.core import GC_THRESHOLDS, FitResult, TaskKey
from srbf.store import STORE_FILENAME, ResultsStore, metrics_long_frame

pytestmark = pytest.mark.slow

CONDITION = "n_support=64;noise=0"
SAMPLING = {"n_support": [64], "n_validation": 32, "draws": 2, "noise": [0.0], "ood": False}


# ---- building stores ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def driver_store(tmp_path_factory):
    """A store written by the real driver: linear and oracle on three Nguyen problems, one budget."""
    try:
        from srbf.runs.config import config_from_dict
        from srbf.runs.driver import run_config
    except ImportError as error:  # pragma: no cover - the driver is being written alongside
        pytest.skip(f"the driver is not importable: {error}")
    root = tmp_path_factory.mktemp("driver") / "results"
    config = config_from_dict({
        "experiment": "score-test",
        "catalogs": ["nguyen"],
        "limit": 3,
        "sampling": {"n_support": 64, "n_validation": 32, "draws": 1},
        "methods": [
            {"name": "linear", "budgets": [1], "config_provenance": "upstream_default"},
            {"name": "oracle", "budgets": [1], "config_provenance": "upstream_default"},
        ],
        "results": str(root),
        "workers": 2,
    })  # fmt: skip
    summary = run_config(config, progress=False)
    assert summary.recorded == 6 and summary.ok == 6
    return root


def copy_of(root, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(root, target)
    return target


def problem_of(problem_id, draw=0, catalog="nguyen", seed=0, n_support=64, n_validation=32):
    cat = load_catalog(catalog)
    return sample_problem(cat.entry(problem_id), catalog=cat.name, catalog_version=cat.version, seed=seed,
                          draw=draw, n_support=n_support, n_validation=n_validation)  # fmt: skip


def write_store(root, fits, *, sampling=SAMPLING, catalogs=("nguyen",), time_limit=None):
    """Record ``fits``: (method, problem_id, draw, FitResult[, data_hash][, catalog_version]) tuples;
    ``time_limit`` (seconds) gives the campaigns a checkpoint grid (EFF)."""
    config = {"run": {"catalogs": list(catalogs), "seed": 0, "sampling": sampling}}
    variant = {} if time_limit is None else {"time_limit": time_limit}
    ids = {}
    with ResultsStore(root) as store:
        campaigns = {}
        for fit in fits:
            method, problem_id, draw, result = fit[:4]
            data_hash = fit[4] if len(fit) > 4 and fit[4] is not None else problem_of(problem_id, draw).data_hash
            version = fit[5] if len(fit) > 5 else 1
            if method not in campaigns:
                campaigns[method] = store.start_campaign(
                    "direct", {**config, "variant": {"label": method, **variant}}, f"hash-{method}", "harness_tuned", git=None
                )
            key = TaskKey(method, f"hash-{method}", "nguyen", version, problem_id, draw, 1.0, CONDITION, 0)
            ids[(method, problem_id, draw)] = store.record(key, result, campaign_id=campaigns[method], data_hash=data_hash)
    return ids


def metrics_by_id(root):
    with ResultsStore.open_readonly(root) as store:
        frame = store.metrics_frame(JUDGE_VERSION)
    return {int(row["prediction_id"]): row for _, row in frame.iterrows()}


# ---- the driver's store -----------------------------------------------------------------------


def test_every_prediction_of_a_driver_run_gets_metrics(driver_store, tmp_path):
    root = copy_of(driver_store, tmp_path)
    summary = score_store(root, workers=1, progress=False)
    assert summary.ok and summary.scored == 6 and summary.skipped == 0 and not summary.failed
    with ResultsStore.open_readonly(root) as store:
        predictions = store.predictions_frame()
        metrics = store.metrics_frame(JUDGE_VERSION)
    assert sorted(metrics["prediction_id"]) == sorted(predictions["id"])
    assert set(metrics["judge_version"]) == {JUDGE_VERSION}
    assert set(METRIC_KEYS) - {"srbench_symbolic_solution"} <= set(metrics.columns)
    oracle = metrics[metrics["method"] == "oracle"]
    assert len(oracle) == 3 and (oracle["nrr_validation"] == 1).all() and (oracle["srr_all"] == 1).all()
    linear = metrics[metrics["method"] == "linear"]
    assert (linear["success"] == 1).all() and (linear["nrr_validation"] == 0).all()


def test_scoring_in_a_callers_process_not_tuned_for_life_freezes_nothing(driver_store, tmp_path, monkeypatch):
    """A pass called from Python raises the collector's thresholds while it scores (``collector_tuned``)
    and gives them back; it freezes nothing, which it could not give back."""
    monkeypatch.setattr(srbf.core, "_tuned_for_life", False)  # as in a process no command has tuned
    gc.unfreeze()
    thresholds, during = gc.get_threshold(), []
    score_chunk = scoring_pass.score_chunk

    def scored_then_seen(*args):
        outcomes = score_chunk(*args)
        during.append((gc.get_threshold(), gc.get_freeze_count()))
        return outcomes

    monkeypatch.setattr(scoring_pass, "score_chunk", scored_then_seen)
    summary = score_store(copy_of(driver_store, tmp_path), workers=1, progress=False)
    assert summary.ok and summary.scored == 6
    assert during and all(seen == (GC_THRESHOLDS, 0) for seen in during)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


def test_a_rerun_scores_nothing_new(driver_store, tmp_path):
    root = copy_of(driver_store, tmp_path)
    score_store(root, workers=1, progress=False)
    before = metrics_by_id(root)
    again = score_store(root, workers=1, progress=False)
    assert again.ok and again.scored == 0 and again.skipped == 6
    after = metrics_by_id(root)
    assert {i: r["created_at"] for i, r in before.items()} == {i: r["created_at"] for i, r in after.items()}


def test_metrics_long_frame_feeds_the_statistics(driver_store, tmp_path):
    from srbf.stats.analysis import analyze

    root = copy_of(driver_store, tmp_path)
    with pytest.warns(UserWarning, match="6 of 6 prediction"):
        assert metrics_long_frame(root, judge_version=JUDGE_VERSION).empty
    score_store(root, workers=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = metrics_long_frame(root, judge_version=JUDGE_VERSION)
    assert len(frame) == 6
    for column in ("method", "catalog", "catalog_version", "problem_id", "draw", "budget", "seconds", "success",
                   "nrr_validation", "provenance", "experiment", "placeholder", "n_support", "noise"):  # fmt: skip
        assert column in frame.columns, column
    assert set(frame["method"]) == {"linear", "oracle"} and set(frame["provenance"]) == {"upstream_default"}
    assert (frame["seconds"] > 0).all() and (frame["n_support"] == 64).all() and not frame["placeholder"].any()
    assert frame["nrr_validation"].dtype.kind in "if"
    result = analyze(frame, ["nrr_validation", "success"], compare_at="budget")
    rows = result.aggregates
    at_budget = rows[(rows["axis"] == "budget") & (rows["metric"] == "nrr_validation")].set_index("method")
    assert at_budget.loc["oracle", "estimate"] == pytest.approx(1.0, abs=0.05)


# ---- failures, hints, data checks ------------------------------------------------------------


def test_failed_fits_are_scored_as_failures_with_their_reason(tmp_path):
    root = tmp_path / "results"
    truth = "x1**3 + x1**2 + x1"
    ids = write_store(root, [
        ("oracle", "Nguyen-1", 0, FitResult("ok", truth, wall_seconds=0.1)),
        ("failed", "Nguyen-1", 0, FitResult("failed", None, error="ValueError: boom")),
        ("timeout", "Nguyen-1", 0, FitResult("timeout", None, error="no result within 5 s")),
        ("crashed", "Nguyen-1", 0, FitResult("crashed", None, error="the worker died (signal 9)")),
        ("garbage", "Nguyen-1", 0, FitResult("ok", "x1 +* )(")),
        ("blowup", "Nguyen-1", 0, FitResult("ok", "log(x1 - 5)")),
        ("placeholder", "Nguyen-1", 0, FitResult("placeholder", error="support: only 0 of 6400 points"), ""),
    ])  # fmt: skip
    summary = score_store(root, workers=1, progress=False)
    assert summary.ok and summary.scored == 7 and summary.as_failures == 6
    m = metrics_by_id(root)
    assert m[ids[("oracle", "Nguyen-1", 0)]]["nrr_validation"] == 1
    expected = {
        "failed": "failed: ValueError: boom",
        "timeout": "timeout: no result within 5 s",
        "crashed": "crashed: the worker died (signal 9)",
        "garbage": "does not parse",
        "blowup": "non-finite values",
        "placeholder": "placeholder: support: only 0 of 6400 points",
    }
    for method, reason in expected.items():
        row = m[ids[(method, "Nguyen-1", 0)]]
        assert reason in row["failure_reason"], method
        assert row["success"] == 0 and row["nrr_validation"] == 0 and row["srr_all"] == 0 and row["token_f1"] == 0
        assert row["fvu_validation"] is None or math.isnan(row["fvu_validation"])
    frame = metrics_long_frame(root, judge_version=JUDGE_VERSION).set_index("method_name")
    assert frame.loc["placeholder", "placeholder"] and not frame.loc["failed", "placeholder"]
    assert frame.loc["timeout", "status"] == "timeout"


def test_parse_hints_from_the_internals_are_used(tmp_path):
    root = tmp_path / "results"
    ids = write_store(root, [
        ("by_index", "Nguyen-9", 0, FitResult("ok", "sin(x0) + sin(x1**2)", internals={"parse": {"by_index": True}})),
        ("no_hints", "Nguyen-9", 0, FitResult("ok", "sin(x0) + sin(x1**2)")),
        ("one_based", "Nguyen-9", 0, FitResult("ok", "sin(x1) + sin(x2**2)", internals={"parse": {"one_based": True}})),
        ("prefix", "Nguyen-9", 0, FitResult("ok", "+ sin x1 sin ** x2 2", internals={"parse": {"notation": "prefix"}})),
        ("bad_hints", "Nguyen-9", 0, FitResult("ok", "sin(x1)", internals={"parse": {"zero_based": True}})),
    ])  # fmt: skip
    assert score_store(root, workers=1, progress=False).ok
    m = metrics_by_id(root)
    for method in ("by_index", "one_based", "prefix"):
        assert m[ids[(method, "Nguyen-9", 0)]]["nrr_validation"] == 1, method
    assert m[ids[("no_hints", "Nguyen-9", 0)]]["nrr_validation"] == 0  # x1 then means the column x1
    bad = m[ids[("bad_hints", "Nguyen-9", 0)]]
    assert bad["success"] == 0 and "parse hints" in bad["failure_reason"]


def test_a_tampered_data_hash_is_reported_naming_the_problem(tmp_path):
    root = tmp_path / "results"
    ids = write_store(root, [
        ("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("oracle", "Nguyen-2", 0, FitResult("ok", "x1**4 + x1**3 + x1**2 + x1"), "0" * 64),
    ])  # fmt: skip
    summary = score_store(root, workers=1, progress=False)
    assert not summary.ok and summary.scored == 1
    assert [f.prediction_id for f in summary.failed] == [ids[("oracle", "Nguyen-2", 0)]]
    reason = summary.failed[0].reason
    assert "nguyen/Nguyen-2" in reason and "draw 0" in reason and "data hash 0000000000000000" in reason
    assert "nguyen/Nguyen-2" in summary.text()
    assert set(metrics_by_id(root)) == {ids[("oracle", "Nguyen-1", 0)]}  # no metrics for the mismatch
    again = score_store(root, workers=1, progress=False)  # tried again, reported again
    assert again.scored == 0 and again.skipped == 1 and len(again.failed) == 1


def _overwrite(root, prediction_id, **columns):
    """Overwrite stored columns of one prediction, as a run elsewhere (or an older srbf) left them."""
    conn = sqlite3.connect(root / STORE_FILENAME)
    with conn:
        assignments = ", ".join(f"{column} = ?" for column in columns)
        conn.execute(f"UPDATE predictions SET {assignments} WHERE id = ?", (*columns.values(), prediction_id))
    conn.close()


def test_the_driver_stores_the_samplers_inputs_hash(driver_store):
    with ResultsStore.open_readonly(driver_store) as store:
        frame = store.predictions_frame()
    assert len(frame) == 6 and (frame["status"] == "ok").all()
    for row in frame.itertuples():
        problem = problem_of(row.problem_id, row.draw, seed=row.seed)
        assert (row.data_hash, row.inputs_hash) == (problem.data_hash, problem.inputs_hash)


def test_the_same_inputs_with_other_targets_are_scored_and_flagged(driver_store, tmp_path):
    root = copy_of(driver_store, tmp_path)
    with ResultsStore.open_readonly(root) as store:
        frame = store.predictions_frame()
    rounded, moved, old = frame.loc[frame["method"] == "oracle", "id"].tolist()
    _overwrite(root, rounded, data_hash="1" * 64)  # targets rounded differently by the run's machine
    _overwrite(root, moved, data_hash="2" * 64, inputs_hash="3" * 64)  # other points altogether
    _overwrite(root, old, data_hash="4" * 64, inputs_hash=None)  # stored by an older srbf: no inputs hash
    summary = score_store(root, workers=1, progress=False)
    assert summary.scored == 4 and summary.targets_differ == 1
    reasons = {failure.prediction_id: failure.reason for failure in summary.failed}
    assert set(reasons) == {moved, old}
    assert "inputs hash 3333333333333333 does not match" in reasons[moved]
    assert "data hash 4444444444444444 does not match" in reasons[old] and "no inputs hash" in reasons[old]
    metrics = metrics_by_id(root)
    assert set(metrics) == set(frame["id"]) - {moved, old}
    assert bool(metrics[rounded]["regenerated_targets_differ"]) and metrics[rounded]["nrr_validation"] == 1
    assert all(pd.isna(m["regenerated_targets_differ"]) for i, m in metrics.items() if i != rounded)
    text = summary.text()
    assert text.count("warning:") == 1 and "warning: 1 prediction(s) scored on targets regenerated here" in text


def test_the_campaigns_validation_size_is_used(tmp_path):
    root = tmp_path / "results"
    sampling = {**SAMPLING, "n_validation": 100}
    problem = problem_of("Nguyen-1", n_validation=100)
    write_store(root, [("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1"), problem.data_hash)],
                sampling=sampling)  # fmt: skip
    assert score_store(root, workers=1, progress=False).ok
    wrong = tmp_path / "wrong"
    write_store(wrong, [("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1"), problem.data_hash)])
    summary = score_store(wrong, workers=1, progress=False)
    assert len(summary.failed) == 1 and "does not match" in summary.failed[0].reason


def test_a_catalog_version_mismatch_names_the_catalog(tmp_path):
    root = tmp_path / "results"
    write_store(root, [
        ("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("oracle", "Nguyen-2", 0, FitResult("ok", "x1**4 + x1**3 + x1**2 + x1"), None, 7),
    ])  # fmt: skip
    summary = score_store(root, workers=1, progress=False)
    assert summary.scored == 1 and len(summary.failed) == 1
    reason = summary.failed[0].reason
    assert "catalog 'nguyen'" in reason and "version 7" in reason and "is version 1" in reason


def test_two_workers_give_the_same_metrics_as_one(tmp_path):
    fits = []
    for problem_id, truth in (("Nguyen-1", "x1**3 + x1**2 + x1"), ("Nguyen-5", "sin(x1**2) * cos(x1) - 1"),
                              ("Nguyen-7", "log(x1 + 1) + log(x1**2 + 1)"), ("Nguyen-9", "sin(x1) + sin(x2**2)")):  # fmt: skip
        for draw in (0, 1):
            fits += [
                ("truth", problem_id, draw, FitResult("ok", truth)),
                ("scaled", problem_id, draw, FitResult("ok", f"1.01 * ({truth})")),
                ("shifted", problem_id, draw, FitResult("ok", f"({truth}) + 1e-8")),
                ("failed", problem_id, draw, FitResult("failed", error="boom")),
            ]
    one, two = tmp_path / "one", tmp_path / "two"
    write_store(one, fits)
    shutil.copytree(one, two)
    a = score_store(one, workers=1, progress=False)
    b = score_store(two, workers=2, progress=False)
    assert a.ok and b.ok and a.scored == b.scored == 32 and b.workers == 2
    fa, fb = metrics_by_id(one), metrics_by_id(two)
    assert fa.keys() == fb.keys()
    for i in fa:
        ra, rb = fa[i].drop("created_at"), fb[i].drop("created_at")
        pd.testing.assert_series_equal(ra, rb, check_names=False)


# Run in a fresh interpreter: the pass forks only when its process runs no other thread, which a
# test process that has run other tests (a progress bar's monitor, a SymPy worker's reader) cannot promise.
HOLDS_NOTHING = """
import contextlib, os, sys
from srbf.judge import problem_scoring, scoring_pass
from srbf.store import STORE_FILENAME

PASS = os.getpid()

def score_chunk_holding_no_store(chunk, srbench, freeze):
    assert os.getpid() != PASS, "not forked: the chunk was scored in the pass's own process"
    held = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor, closed by now
            held.append(os.readlink(f"/proc/self/fd/{fd}"))
    assert held and not [path for path in held if STORE_FILENAME in path], held
    return problem_scoring.score_chunk(chunk, srbench, freeze)

scoring_pass.score_chunk = score_chunk_holding_no_store  # forked processes inherit it
summary = scoring_pass.score_store(sys.argv[1], workers=2, progress=False)
assert summary.ok and summary.scored == 12 and summary.workers == 2, summary
print("forked, no store descriptor")
"""


@pytest.mark.skipif(not scoring_pass.FORK, reason="scoring processes are forked on Linux only")
def test_forked_scoring_processes_hold_nothing_of_the_store(tmp_path):
    root = tmp_path / "results"
    write_store(root, [(method, problem_id, draw, FitResult("ok", "x1 + 1")) for method in ("a", "b")
                       for problem_id in ("Nguyen-1", "Nguyen-2", "Nguyen-3") for draw in (0, 1)])  # fmt: skip
    done = subprocess.run([sys.executable, "-c", HOLDS_NOTHING, str(root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "forked, no store descriptor" in done.stdout, done.stderr


def test_srbench_adds_the_symbolic_check_to_rows_scored_without_it(tmp_path):
    root = tmp_path / "results"
    ids = write_store(root, [
        ("truth", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("scaled", "Nguyen-1", 0, FitResult("ok", "1.0001 * (x1**3 + x1**2 + x1)")),
        ("failed", "Nguyen-1", 0, FitResult("failed", error="boom")),
    ])  # fmt: skip
    score_store(root, workers=1, progress=False)
    assert "srbench_symbolic_solution" not in metrics_by_id(root)[ids[("truth", "Nguyen-1", 0)]]
    summary = score_store(root, workers=1, srbench=True, progress=False)
    assert summary.ok and summary.scored == 3 and summary.skipped == 0
    m = metrics_by_id(root)
    assert m[ids[("truth", "Nguyen-1", 0)]]["srbench_symbolic_solution"] == 1
    assert m[ids[("scaled", "Nguyen-1", 0)]]["srbench_symbolic_solution"] == 1  # a scaled truth counts
    assert m[ids[("failed", "Nguyen-1", 0)]]["srbench_symbolic_solution"] == 0
    assert score_store(root, workers=1, srbench=True, progress=False).scored == 0


# ---- small pieces, errors, the command line ---------------------------------------------------


def test_no_store_and_a_readonly_store_are_errors(tmp_path):
    with pytest.raises(ScoringError, match="no results store"):
        score_store(tmp_path / "nothing", progress=False)
    assert not (tmp_path / "nothing").exists()
    write_store(tmp_path / "results", [("oracle", "Nguyen-1", 0, FitResult("ok", "x1"))])
    with ResultsStore.open_readonly(tmp_path / "results") as store, pytest.raises(ScoringError, match="read-only"):
        score_store(store, progress=False)


def test_the_cli_prints_a_summary(tmp_path, capsys):
    root = tmp_path / "results"
    write_store(root, [
        ("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("failed", "Nguyen-1", 0, FitResult("failed", error="boom")),
    ])  # fmt: skip
    assert main(["score", "--results", str(root), "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 prediction(s) scored" in out and "(1 as failures)" in out and "0 already scored" in out
    assert main(["score", "--results", str(root), "--quiet"]) == 0
    assert "0 prediction(s) scored" in capsys.readouterr().out

    bad = tmp_path / "bad"
    write_store(bad, [("oracle", "Nguyen-2", 0, FitResult("ok", "x1"), "f" * 64)])
    assert main(["score", "--results", str(bad), "--quiet"]) == 1
    assert "nguyen/Nguyen-2" in capsys.readouterr().out
    assert main(["score", "--results", str(tmp_path / "none"), "--quiet"]) == 2
    assert "no results store" in capsys.readouterr().err


def test_failure_records_match_the_judges_own(tmp_path):
    """A failed fit's record has exactly the keys and values the judge gives a missing prediction."""
    from srbf.judge import Judge

    root = tmp_path / "results"
    write_store(root, [("failed", "Nguyen-1", 0, FitResult("failed", error="boom"))])
    score_store(root, workers=1, progress=False)
    with ResultsStore.open_readonly(root) as store:
        stored = store.metrics_frame(JUDGE_VERSION, expand=False)["metrics"].iloc[0]
    own = Judge("x1", problem_of("Nguyen-1"), variables=["x1"]).score(None)
    own.pop("judge_version")
    assert own.pop("positive_variables") == "none (catalog nguyen, Nguyen-1)"  # said by the library; the store keys rows by the entry
    own["failure_reason"] = "failed: boom"
    axes = {key: stored.pop(key) for key in AXIS_KEYS}  # the scoring pass's own addition (no OOD points here)
    assert axes == {"arena_id": 0.0, "arena_ood": None, "arena_sym": 0.0, "arena_min": 0.0, "arena_eff": None}
    assert stored == own


def test_the_catalogs_ranges_give_the_positive_variables(tmp_path):
    # Nguyen-8 is sqrt(x1) on [0, 4]: x1 is never negative there, so abs(x1) is x1
    root = tmp_path / "results"
    ids = write_store(root, [("abs", "Nguyen-8", 0, FitResult("ok", "sqrt(abs(x1))"))])
    assert score_store(root, workers=1, progress=False).ok
    assert metrics_by_id(root)[ids[("abs", "Nguyen-8", 0)]]["srr_exponents"] == 1


def test_a_damaged_internals_value_is_reported_not_a_crash(tmp_path):
    root = tmp_path / "results"
    ids = write_store(root, [
        ("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("damaged", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1", internals={"parse": {"one_based": False}})),
    ])  # fmt: skip
    damaged = ids[("damaged", "Nguyen-1", 0)]
    with sqlite3.connect(root / STORE_FILENAME) as connection:
        connection.execute("UPDATE predictions SET internals = ? WHERE id = ?", ('{"parse": {"one_b', damaged))
    summary = score_store(root, workers=1, progress=False)
    assert not summary.ok and summary.scored == 1
    (failure,) = summary.failed
    assert failure.prediction_id == damaged
    assert failure.reason.startswith("nguyen/Nguyen-1: its stored internals are not valid JSON (")
    assert "parse hints cannot be read" in failure.reason
    assert list(metrics_by_id(root)) == [ids[("oracle", "Nguyen-1", 0)]]
    assert main(["score", "--results", str(root), "--quiet"]) == 1  # the CLI says so too, no traceback


def test_judge_command_positive_variables(capsys, tmp_path):
    data = tmp_path / "p.npz"
    assert main(["sample", "feynman", "I.44.4", "-o", str(data)]) == 0  # n*kb*T*log(V2/V1), all ranges positive
    truth, prediction = "n*kb*T*log(V2/V1)", "n*kb*T*(log(V2) - log(V1))"

    def structure(*extra):
        capsys.readouterr()
        assert main(["judge", "--truth", truth, "--prediction", prediction, "--data", str(data), "--json", *extra]) == 0
        import json

        return json.loads(capsys.readouterr().out)["srr_structure"]

    assert structure() == 1  # from the catalog entry the file names
    assert structure("--positive", "") == 0  # none
    assert structure("--positive", "V1,V2") == 1
    assert main(["judge", "--truth", truth, "--prediction", prediction, "--data", str(data), "--positive", "V3"]) == 2
    assert "positive names V3, not among the data's columns" in capsys.readouterr().err


def test_judge_command_reads_the_catalog_entrys_target(capsys, tmp_path):
    """`srbf sample` names its catalog entry, so `E = ...` (the entry's output) is read as the
    formula; another name is a parse failure; --target names it for a file without an entry."""
    import json

    data = tmp_path / "p.npz"
    assert main(["sample", "feynman", "I.39.22", "-o", str(data)]) == 0  # pr = n*kb*T/V

    def judged(prediction, *extra):
        capsys.readouterr()
        assert main(["judge", "--truth", "n*kb*T/V", "--prediction", prediction, "--data", str(data), "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)

    assert judged("pr = n*kb*T/V")["srr_structure"] == 1
    assert judged("y = n*kb*T/V")["srr_structure"] == 1
    assert "'q' of the '='" in judged("q = n*kb*T/V")["failure_reason"]
    assert judged("q = n*kb*T/V", "--target", "q")["srr_structure"] == 1


def test_positive_variables_of_a_catalog_entry():
    from srbf.catalogs.model import VariableSpec
    from srbf.judge.data import positive_variables

    specs = [
        VariableSpec("a", 0.0, 1.0),
        VariableSpec("b", -1.0, 1.0),
        VariableSpec("c", 1.0, 2.0, sign="negative"),
        VariableSpec("d", 1.0, 2.0, sign="both"),
        VariableSpec("e", 0.5, 2.0, distribution="log_uniform"),
        VariableSpec("f", 0.0, 5.0, distribution="integer"),
    ]
    assert positive_variables(specs) == ("a", "e", "f")


def test_the_cli_prints_the_summary_as_json(tmp_path, capsys):
    import json

    root = tmp_path / "results"
    write_store(root, [("oracle", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
                       ("failed", "Nguyen-1", 0, FitResult("failed", error="boom"))])  # fmt: skip
    assert main(["score", "--results", str(root), "--workers", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["scored"], summary["as_failures"], summary["skipped"], summary["ok"]) == (2, 1, 0, True)
    assert summary["failed"] == [] and summary["reasons"] == {} and summary["judge_version"] == JUDGE_VERSION
    bad = tmp_path / "bad"
    write_store(bad, [("oracle", "Nguyen-2", 0, FitResult("ok", "x1"), "f" * 64)])
    assert main(["score", "--results", str(bad), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert not summary["ok"] and len(summary["failed"]) == 1 and "nguyen/Nguyen-2" in next(iter(summary["reasons"]))


def test_shared_readings_give_the_metrics_of_a_fresh_judge_per_prediction(tmp_path):
    """The pass reads each text once per problem and hands the judge's tree, function and facts to
    the arena axes; every stored row must equal the one a fresh judge and fresh caches give."""
    from srbf.catalogs.admission import parse_entry
    from srbf.expr.canonical import clear_cache as clear_canonical_cache
    from srbf.judge import formula_facts
    from srbf.judge.data import positive_variables
    from srbf.judge.problem_scoring import StoredPrediction, _read_prediction
    from srbf.judge.run_axes import ProblemPoints, axis_metrics, evaluate_run
    from srbf.judge.scoring import Judge

    exact, scaled = "sin(x1) + sin(x2**2)", "sin(x1) + 0.9*sin(x2**2)"
    fits = [
        ("a", "Nguyen-9", 0, FitResult("ok", exact, trajectory=[(0.1, "x1"), (0.5, exact)])),
        ("b", "Nguyen-9", 0, FitResult("ok", exact)),  # the same text: read once, same row
        ("c", "Nguyen-9", 0, FitResult("ok", scaled, trajectory=[(0.2, scaled), (0.9, exact)])),
        ("d", "Nguyen-9", 0, FitResult("ok", "0.5*x1 + x2 + 0*x1")),
        ("e", "Nguyen-9", 0, FitResult("ok", "sin(x0) + sin(x1**2)", internals={"parse": {"by_index": True}})),
        ("f", "Nguyen-9", 0, FitResult("ok", "y = " + scaled)),  # the target's name on the left
        ("a", "Nguyen-1", 0, FitResult("ok", "x1**3 + x1**2 + x1")),
        ("b", "Nguyen-1", 0, FitResult("ok", "x1**3 + 1.01*x1**2 + x1 + log(x1 - 5)")),  # NaN: a failure
    ]
    root = tmp_path / "results"
    ids = write_store(root, fits, time_limit=1.0)
    assert score_store(root, workers=1, progress=False).ok
    conn = sqlite3.connect(root / STORE_FILENAME)
    stored = {pid: json.loads(text) for pid, text in conn.execute("SELECT prediction_id, metrics FROM metrics")}
    conn.close()
    grid = checkpoint_times(1.0)
    catalog = load_catalog("nguyen")
    for method, problem_id, draw, result in fits:
        entry, problem = catalog.entry(problem_id), problem_of(problem_id, draw)

        def fresh():  # positive variables and target from the entry the problem names, as the library takes them
            return Judge(parse_entry(entry), problem, variables=entry.variable_names)

        formula_facts.clear_cache()
        clear_canonical_cache()
        hints = (result.internals or {}).get("parse")
        p = StoredPrediction(0, "ok", result.expression, None, problem.data_hash, "", hints,
                             tuple(result.trajectory), grid)  # fmt: skip
        given, bad = _read_prediction(p, entry.variable_names)
        assert bad is None
        record = fresh().score(given)
        record.pop("judge_version")
        known = ", ".join(sorted(positive_variables(entry.variables))) or "none"
        assert record.pop("positive_variables") == f"{known} (catalog nguyen, {problem_id})"
        points = ProblemPoints(problem, tuple(entry.variable_names), entry.target)
        record.update(axis_metrics(evaluate_run(p, record, fresh(), points)[0]))
        assert stored[ids[(method, problem_id, draw)]] == record, (method, problem_id)
    assert stored[ids[("a", "Nguyen-9", 0)]]["arena_eff"] is not None
    assert stored[ids[("b", "Nguyen-1", 0)]]["success"] == 0


def test_neither_the_pass_nor_its_scoring_processes_import_pandas(tmp_path):
    """The parent plans from the store's plain rows and the scoring processes import only the judge:
    pandas (80 MB and 0.6 s a process) is for the commands that read frames."""
    import subprocess
    import sys

    root = tmp_path / "results"
    fits = [(method, problem_id, draw, FitResult("ok", "x1 + 1")) for method in ("a", "b", "c")
            for problem_id in ("Nguyen-1", "Nguyen-2") for draw in (0, 1)]  # fmt: skip
    write_store(root, fits, time_limit=10)
    command = [sys.executable, "-X", "importtime", "-m", "srbf.cli", "score", "--results", str(root), "--workers", "2",
               "--json"]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout)
    assert summary["scored"] == 12 and summary["workers"] == 2
    imported = [line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")]
    assert "srbf.judge.scoring" in imported  # the scoring processes' imports are listed too
    assert not [name for name in imported if name == "pandas" or name.startswith("pandas.")]
