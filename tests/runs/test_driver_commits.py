"""Fits that finish close together share one commit; none is lost when the run stops."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from driver_helpers import rows, swiss_config
from srbf.runs.config import load_config
from srbf.runs.driver import COMMIT_WINDOW_SECONDS, _HeldResults, run_config
from srbf.runs.summary import RunSummary
from srbf.runs.executor import Completed
from srbf.runs.plan import make_plan
from srbf.core import FitResult
from srbf.store import ResultsStore


def _completed(tmp_path, n: int):
    config = load_config(swiss_config(tmp_path, n=n, draws=1, budgets=(1,)))
    plan = make_plan(config)
    return config, plan, [Completed(fit, FitResult(status="ok", expression="x"), "hash") for fit in plan.fits]


def test_held_fits_are_committed_together_once_the_window_has_passed(tmp_path, monkeypatch):
    clock = [100.0]
    monkeypatch.setattr("srbf.runs.driver.time.monotonic", lambda: clock[0])
    config, plan, done = _completed(tmp_path, 4)
    store = ResultsStore(config.results)
    variant = plan.variants[0]
    campaign = store.start_campaign("held", {}, variant.config_hash, "harness_tuned", git=None)
    summary = RunSummary("held", store.path)
    held = _HeldResults(store, {(variant.name, variant.config_hash): campaign}, summary)
    held.add(done[:1])
    held.add(done[1:3])
    assert not held.due()  # the window started with the first fit held
    assert held.arrived == Counter(ok=3) and summary.recorded == 0
    clock[0] += COMMIT_WINDOW_SECONDS * 0.9
    held.add(done[3:])  # arrives within the window: it does not restart it
    assert not held.due()
    clock[0] += COMMIT_WINDOW_SECONDS * 0.2
    assert held.due()
    held.commit()
    assert summary.recorded == 4 and len(rows(Path(config.results))) == 4
    held.add([])  # an empty batch (nothing arrived) starts no window
    clock[0] += COMMIT_WINDOW_SECONDS * 2
    assert not held.due()
    held.commit()  # nothing held: nothing written
    store.close()
    assert summary.recorded == 4 and len(rows(Path(config.results))) == 4


@pytest.mark.slow
def test_a_run_of_slow_fits_commits_each_soon_after_it_arrives(tmp_path):
    """With fits slower than the window, every commit holds one fit: a reader sees each fit while
    the run goes on, not at its end."""
    config = load_config(swiss_config(tmp_path, n=3, draws=1, budgets=(1,), workers=1, options={"mode": "slow", "seconds": 0.3}))
    summary = run_config(config, progress=False)
    assert summary.recorded == 3
    with ResultsStore.open_readonly(config.results) as store:
        created = sorted(store.predictions_frame(decode_json=False).created_at)
    assert len(set(created)) == 3  # three commits, about 0.3 s apart
