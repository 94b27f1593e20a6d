"""The arena's per-run values from a hand-made store, against values computed here with NumPy.

The store holds real records of the shipped nguyen set (points drawn by the runner's
ProblemSource), written with ResultsStore as the driver writes them: a final formula equal to the
truth, a wrong one with a trajectory whose first checkpoints are unavailable, a failed fit, and
the same fits in a campaign that drew no out-of-range points.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from srbf.arena import ArenaError, collect
from srbf.judge.axes import phi
from srbf.catalogs.loader import load_catalog
from srbf.core import FitResult, TaskKey
from srbf.runs.problems import ProblemSource
from srbf.store import ResultsStore

CONDITION = "n_support=32;noise=0"


def _nmse(y: np.ndarray, y_hat: np.ndarray) -> float:
    return float(np.sum((y - y_hat) ** 2) / np.sum((y - y.mean()) ** 2))


def _store(tmp_path, ood: bool):
    catalog = load_catalog("nguyen")
    entry = catalog.entry("Nguyen-1")  # x1**3 + x1**2 + x1
    problem = ProblemSource().draw(entry, catalog="nguyen", catalog_version=catalog.version, seed=0, draw=0,
                                   n_support=32, noise=0.0, n_validation=64, ood=ood)  # fmt: skip
    config = {"run": {"catalogs": ["nguyen"], "sampling": {"n_validation": 64, "ood": ood}, "checkpoints": 4},
              "variant": {"label": "hand", "time_limit": 10.0}}  # fmt: skip
    store = ResultsStore(tmp_path / ("ood" if ood else "plain"))
    campaign = store.start_campaign("hand", config, "h", "harness_tuned", git=None)
    fits = {
        "exact": FitResult("ok", "x1**3 + x1**2 + x1", trajectory=[(1.0, "x1"), (4.0, "x1**3 + x1**2 + x1")]),
        "late": FitResult("ok", "x1**2 + x1", trajectory=[(6.0, "x1"), (9.0, "x1**2 + x1")]),  # checkpoints 1, 2 unavailable
        "failed": FitResult("failed", error="the method raised"),
        "silent": FitResult("ok", "x1"),  # no trajectory
    }
    for name, result in fits.items():
        key = TaskKey(name, "h", "nguyen", catalog.version, "Nguyen-1", 0, 1.0, CONDITION, 0)
        store.record(key, result, campaign_id=campaign, data_hash=problem.data_hash, inputs_hash=problem.inputs_hash)
    never = TaskKey("never", "h", "nguyen", catalog.version, "Nguyen-1", 0, 1.0, CONDITION, 0)
    store.record(never, FitResult("crashed", error="not run: the method's workers were stopped"), campaign_id=campaign,
                 data_hash="")  # the driver records a fit it never ran without the points' hashes  # fmt: skip
    quiet = store.start_campaign("hand", {**config, "variant": {"label": "quiet", "time_limit": 10.0}}, "q",
                                 "harness_tuned", git=None)  # fmt: skip
    key = TaskKey("quiet", "q", "nguyen", catalog.version, "Nguyen-1", 0, 1.0, CONDITION, 0)
    store.record(key, FitResult("ok", "x1"), campaign_id=quiet, data_hash=problem.data_hash, inputs_hash=problem.inputs_hash)
    store.close()
    return tmp_path / ("ood" if ood else "plain"), problem


def _by_method(runs):
    return {r["method_name"]: r for r in runs.to_dict("records")}


def test_runs_with_ood_points(tmp_path):
    path, problem = _store(tmp_path, ood=True)
    data = collect(path)
    runs = _by_method(data.runs)
    x, y = problem.X_validation[:, 0], problem.y_validation
    xo, yo = problem.X_ood[:, 0], problem.y_ood

    exact = runs["exact"]
    assert exact["id"] == pytest.approx(1.0) and exact["ood"] == pytest.approx(1.0)
    assert (exact["sym"], exact["min"], exact["sym_judgment"]) == (1.0, 1.0, "equivalent")
    assert exact["sym_reason"] == "the canonical forms are identical"
    # checkpoints at 2.5, 5, 7.5, 10 s: x1, truth, truth, truth
    q_x = (phi(_nmse(y, x)) + phi(_nmse(yo, xo))) / 2
    assert exact["eff"] == pytest.approx((q_x + 3) / 4)

    late = runs["late"]
    q_id, q_ood = phi(_nmse(y, x**2 + x)), phi(_nmse(yo, xo**2 + xo))
    assert late["id"] == pytest.approx(q_id) and late["ood"] == pytest.approx(q_ood)
    assert late["sym_judgment"] == "not equivalent" and late["sym"] < 0.5
    # checkpoints: unavailable, unavailable, x1 (reported at 6 s), x1**2 + x1 (9 s)
    q_final = (q_id + q_ood) / 2
    assert late["eff"] == pytest.approx((0 + 0 + q_x / q_final + 1) / 4)
    assert "2 unavailable" in late["eff_note"]
    assert late["min"] == 1.0  # shorter than the truth

    failed = runs["failed"]
    assert (failed["valid"], failed["id"], failed["ood"], failed["sym"], failed["min"]) == (False, 0, 0, 0, 0)
    assert failed["sym_judgment"] == "invalid" and "the method raised" in failed["sym_reason"]
    # EFF is a run's own: without a reported incumbent it is undefined, whether other runs of the
    # same method report (failed, silent) or none does (quiet)
    for name in ("failed", "silent", "quiet"):
        assert math.isnan(runs[name]["eff"]) and runs[name]["eff_note"] == "no trajectory: no incumbent reported"

    never = runs["never"]  # a fit that never ran is a failed run of its task, not a skipped one
    assert (never["valid"], never["id"], never["sym"], never["sym_judgment"]) == (False, 0.0, 0.0, "invalid")
    assert data.skipped.empty

    assert set(data.judgments["kind"]) == {"truth"} and len(data.judgments) == 6
    assert data.stability["note"].eq("needs 2 repeats per task (found 1)").all()


def test_an_ood_less_run_has_no_ood_and_eff_on_id_alone(tmp_path):
    path, problem = _store(tmp_path, ood=False)
    runs = _by_method(collect(path).runs)
    x, y = problem.X_validation[:, 0], problem.y_validation
    exact = runs["exact"]
    assert math.isnan(exact["ood"]) and exact["ood_note"]
    assert exact["eff"] == pytest.approx((phi(_nmse(y, x)) + 3) / 4)
    late = runs["late"]
    assert late["eff"] == pytest.approx((phi(_nmse(y, x)) / phi(_nmse(y, x**2 + x)) + 1) / 4)


def test_no_store_is_one_clear_error(tmp_path):
    with pytest.raises(ArenaError, match="no results store at"):
        collect(tmp_path / "nothing")


def test_a_bad_checkpoint_count_names_the_campaign(tmp_path):
    store = ResultsStore(tmp_path / "bad")
    campaign = store.start_campaign("odd", {"run": {"checkpoints": 0}, "variant": {"time_limit": 5}}, "h",
                                    "harness_tuned", git=None)  # fmt: skip
    key = TaskKey("m", "h", "nguyen", 1, "Nguyen-1", 0, 1.0, CONDITION, 0)
    store.record(key, FitResult("ok", "x1"), campaign_id=campaign, data_hash="")
    store.close()
    with pytest.raises(ArenaError, match=r"campaign 1 \(odd\): run.checkpoints must be a positive integer, got 0$"):
        collect(tmp_path / "bad")
