"""The arena axes as stored metrics: `srbf score` on a hand-made store, against values computed here.

The store holds real records of the shipped nguyen set (points drawn by the runner's
ProblemSource), written with ResultsStore as the driver writes them. Every expected value is
computed in this file with NumPy (the bounded log-error map written out again), and the same
store read by the arena must give the same values: one code path for both.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from srbf.arena import collect
from srbf.catalogs.loader import load_catalog
from srbf.core import FitResult, TaskKey
from srbf.judge import AXIS_KEYS, JUDGE_VERSION
from srbf.judge.scoring_pass import score_store
from srbf.runs.problems import ProblemSource
from srbf.store import ResultsStore

CONDITION = "n_support=32;noise=0"
TRUTH = "x1**3 + x1**2 + x1"  # Nguyen-1


def _phi(nmse: float) -> float:
    """SymbolicArena's map, written out: (2 - clip(log10(max(x, 1e-12)), -12, 2)) / 14."""
    return (2 - min(max(math.log10(max(nmse, 1e-12)), -12), 2)) / 14


def _nmse(y: np.ndarray, y_hat: np.ndarray) -> float:
    return float(np.sum((y - y_hat) ** 2) / np.sum((y - y.mean()) ** 2))


FITS = {
    "exact": FitResult("ok", TRUTH, trajectory=[(1.0, "x1"), (4.0, TRUTH)]),
    "late": FitResult("ok", "x1**2 + x1", trajectory=[(6.0, "x1"), (9.0, "x1**2 + x1")]),  # checkpoints 1, 2 unavailable
    "line": FitResult("ok", "x1"),  # no trajectory
    "long": FitResult("ok", TRUTH + " + sin(x1)", trajectory=[(0.5, TRUTH + " + sin(x1)")]),
    "failed": FitResult("failed", error="the method raised"),
    "timeout": FitResult("timeout", error="over the limit", trajectory=[(3.0, "x1")]),  # a trajectory, no final
}


def _store(path, *, ood: bool, time_limit: float | None = 10.0):
    catalog = load_catalog("nguyen")
    entry = catalog.entry("Nguyen-1")
    problem = ProblemSource().draw(entry, catalog="nguyen", catalog_version=catalog.version, seed=0, draw=0,
                                   n_support=32, noise=0.0, n_validation=64, ood=ood)  # fmt: skip
    variant = {"label": "hand"} if time_limit is None else {"label": "hand", "time_limit": time_limit}
    config = {"run": {"catalogs": ["nguyen"], "sampling": {"n_validation": 64, "ood": ood}, "checkpoints": 4},
              "variant": variant}  # fmt: skip
    ids = {}
    with ResultsStore(path) as store:
        campaign = store.start_campaign("hand", config, "h", "harness_tuned", git=None)
        for name, result in FITS.items():
            key = TaskKey(name, "h", "nguyen", catalog.version, "Nguyen-1", 0, 1.0, CONDITION, 0)
            ids[name] = store.record(key, result, campaign_id=campaign, data_hash=problem.data_hash,
                                     inputs_hash=problem.inputs_hash)  # fmt: skip
        never = TaskKey("never", "h", "nguyen", catalog.version, "Nguyen-1", 0, 1.0, CONDITION, 0)
        ids["never"] = store.record(never, FitResult("crashed", error="not run: every worker for method never was "
                                                     "stopped"), campaign_id=campaign, data_hash="")  # fmt: skip
    return ids, problem


def _scored(path, ids) -> dict[str, dict]:
    summary = score_store(path, workers=1, progress=False)
    assert summary.failed == []  # the never-run fit too: scored as the failure it is
    with ResultsStore.open_readonly(path) as store:
        frame = store.metrics_frame(JUDGE_VERSION, expand=False)
    by_id = dict(zip(frame["prediction_id"], frame["metrics"]))
    return {name: by_id[pid] for name, pid in ids.items()}


@pytest.mark.slow
def test_stored_axes_with_ood_points(tmp_path):
    ids, problem = _store(tmp_path / "r", ood=True)
    m = _scored(tmp_path / "r", ids)
    x, y = problem.X_validation[:, 0], problem.y_validation
    xo, yo = problem.X_ood[:, 0], problem.y_ood
    q_x = (_phi(_nmse(y, x)) + _phi(_nmse(yo, xo))) / 2  # the incumbent x1 on ID and OOD points

    exact = m["exact"]
    assert (exact["arena_id"], exact["arena_ood"], exact["arena_sym"], exact["arena_min"]) == (1.0, 1.0, 1.0, 1.0)
    assert exact["arena_eff"] == pytest.approx((q_x + 3) / 4)  # checkpoints 2.5, 5, 7.5, 10 s: x1, truth x3

    late = m["late"]
    q_id, q_ood = _phi(_nmse(y, x**2 + x)), _phi(_nmse(yo, xo**2 + xo))
    assert late["arena_id"] == pytest.approx(q_id) and late["arena_ood"] == pytest.approx(q_ood)
    assert late["arena_eff"] == pytest.approx((0 + 0 + q_x / ((q_id + q_ood) / 2) + 1) / 4)  # two unavailable
    assert late["arena_min"] == 1.0 and 0 < late["arena_sym"] < 0.5  # shorter than the truth; partial credit

    line = m["line"]  # x1 shares no operator with the truth: F_o = 0, so SYM = 0.5 (S F_v 0)^(1/3) = 0
    assert line["arena_id"] == pytest.approx(_phi(_nmse(y, x))) and line["arena_sym"] == 0.0
    assert line["arena_eff"] is None  # no trajectory: undefined, not 0

    long = m["long"]
    assert long["arena_min"] == pytest.approx(long["token_count_truth"] / long["token_count_prediction"])
    assert long["arena_min"] < 1
    assert long["arena_eff"] == 1.0  # its one report came before the first checkpoint

    for name in ("failed", "never"):
        assert {k: m[name][k] for k in AXIS_KEYS} == {"arena_id": 0.0, "arena_ood": 0.0, "arena_sym": 0.0,
                                                       "arena_min": 0.0, "arena_eff": None}  # fmt: skip
    assert m["never"]["success"] == 0 and m["never"]["failure_reason"].startswith("crashed: not run")
    timeout = m["timeout"]  # no final formula: 0 on the final's axes, EFF from its trajectory (x1 from 3 s on)
    assert (timeout["arena_id"], timeout["arena_ood"], timeout["arena_sym"]) == (0.0, 0.0, 0.0)
    assert timeout["arena_eff"] == pytest.approx(3 / 4)  # 0, q_x, q_x, q_x over q* = q_x


@pytest.mark.slow
def test_undefined_axes_without_ood_points_or_a_grid(tmp_path):
    ids, problem = _store(tmp_path / "plain", ood=False)
    m = _scored(tmp_path / "plain", ids)
    x, y = problem.X_validation[:, 0], problem.y_validation
    assert all(m[name]["arena_ood"] is None for name in m)  # also for the failed fits: undefined, never 0
    assert m["exact"]["arena_eff"] == pytest.approx((_phi(_nmse(y, x)) + 3) / 4)  # q(t) = q_ID(t) alone

    ids, _ = _store(tmp_path / "nolimit", ood=False, time_limit=None)  # no time limit: no checkpoint grid
    m = _scored(tmp_path / "nolimit", ids)
    assert all(m[name]["arena_eff"] is None for name in m) and m["exact"]["arena_id"] == 1.0


@pytest.mark.slow
def test_the_arena_reads_the_same_values(tmp_path):
    ids, _ = _store(tmp_path / "r", ood=True)
    stored = _scored(tmp_path / "r", ids)
    runs = collect(tmp_path / "r").runs.set_index("prediction_id")
    assert len(runs) == len(ids)  # the never-run fit is a failed run for the arena too, not a skipped one
    for name, pid in ids.items():
        for axis, key in zip(("id", "ood", "sym", "min", "eff"), AXIS_KEYS):
            value = runs.loc[pid, axis]
            assert (math.isnan(value) and stored[name][key] is None) or value == stored[name][key], (name, axis)


def test_a_bad_checkpoint_count_is_a_scoring_failure_naming_the_campaign(tmp_path):
    with ResultsStore(tmp_path / "bad") as store:
        campaign = store.start_campaign("odd", {"run": {"checkpoints": 0}, "variant": {"time_limit": 5}}, "h",
                                        "harness_tuned", git=None)  # fmt: skip
        key = TaskKey("m", "h", "nguyen", 1, "Nguyen-1", 0, 1.0, CONDITION, 0)
        store.record(key, FitResult("ok", "x1"), campaign_id=campaign, data_hash="")
    summary = score_store(tmp_path / "bad", workers=1, progress=False)
    assert [f.reason for f in summary.failed] == ["campaign 1 (odd): run.checkpoints must be a positive integer, got 0"]


def test_the_id_nmse_the_judge_hands_over_is_the_one_computed_here():
    from srbf.judge.run_axes import ProblemPoints
    from srbf.judge.scoring import Judge

    catalog = load_catalog("nguyen")
    entry = catalog.entry("Nguyen-1")
    problem = ProblemSource().draw(entry, catalog="nguyen", catalog_version=catalog.version, seed=0, draw=0,
                                   n_support=32, noise=0.0, n_validation=64, ood=True)  # fmt: skip
    judge = Judge(TRUTH, problem, variables=entry.variable_names, target=entry.target)
    fresh = ProblemPoints(problem, tuple(entry.variable_names), entry.target)  # its own targets, nothing handed over
    for text in ("x1", "x1**2 + x1", TRUTH + " + sin(x1)", "exp(x1) - 0.3*cos(2.1*x1)"):
        record = judge.score(text)
        assert fresh.nmse(text, None)[0] == record["fvu_validation"]  # bit for bit: add_axes stores the judge's
