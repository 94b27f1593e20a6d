"""Repeats (``repeats: K``): K fits of a method on the same points, each with its own method seed,
the repeat index part of the key; and the checkpoint grid (``checkpoints: N``) kept with the run.
Real worker processes and real stores, including one written by srbf before keys had a repeat."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from driver_helpers import write_catalog, write_config, write_method
from srbf.cli import main
from srbf.methods.isolation import method_seed
from srbf.runs.config import ConfigError, config_from_dict, load_config
from srbf.runs.driver import run_config
from srbf.runs.plan import make_plan
from srbf.store import ResultsStore

DATA = Path(__file__).resolve().parents[1] / "store" / "data"

# A stochastic method: its constant is drawn from the seed it receives; it returns that seed and
# what it saw of the points, so a test can tell the seeds apart and the points alike.
SEEDED = '''
import numpy as np


def fit(X, y, *, budget, seed, variables, options, report):
    c = float(np.random.default_rng(seed).normal())
    report("x")
    report(f"x + {c!r}")
    return {"expression": f"x + {c!r}", "seed": seed, "seen": [float(X.sum()), float(y.sum())]}
'''


def seeded_config(folder: Path, repeats: int | None, name: str = "run.yaml", **extra) -> Path:
    catalog = write_catalog(folder, 2)
    method = write_method(folder, SEEDED, "seeded.py")
    fields = {"repeats": repeats} if repeats is not None else {}
    return write_config(folder, name=name, catalogs=[str(catalog)], workers=1, budgets=[1],
                        method={"name": "seeded", "adapter": {"type": "file", "path": str(method)}, "time_limit": 30},
                        sampling={"n_support": 16, "n_validation": 16, "draws": 1}, **fields, **extra)  # fmt: skip


@pytest.mark.slow
def test_repeats_of_a_stochastic_method_get_their_own_seeds_on_identical_points_and_resume(tmp_path):
    config = load_config(seeded_config(tmp_path, 2))
    summary = run_config(config, progress=False)
    assert summary.recorded == 4 and summary.ok == 4
    with ResultsStore.open_readonly(config.results) as store:
        frame = store.predictions_frame()
    conn = sqlite3.connect(Path(config.results) / "srbf.sqlite")
    secret = bytes(conn.execute("SELECT value FROM secret").fetchone()[0])  # the store's own secret
    conn.close()
    assert sorted(zip(frame["problem_id"], frame["repeat"])) == [("p01", 0), ("p01", 1), ("p02", 0), ("p02", 1)]
    for _, fits in frame.groupby("problem_id"):
        first, second = fits.to_dict("records")
        assert first["data_hash"] == second["data_hash"] and first["inputs_hash"] == second["inputs_hash"]
        assert first["internals"]["seen"] == second["internals"]["seen"]  # the same points reached the method
        assert first["internals"]["seed"] != second["internals"]["seed"]
        assert first["expression"] != second["expression"]
        for fit in (first, second):  # each repeat's seed is derived from its own key under the secret
            key = next(k for k in make_plan(config).keys if k.problem_id == fit["problem_id"] and k.repeat == fit["repeat"])
            assert fit["internals"]["seed"] == method_seed(secret, key)

    again = run_config(config, progress=False)
    assert again.pending == 0 and again.skipped == 4  # both repeats are stored: nothing reruns
    more = run_config(config.model_copy(update={"repeats": 3}), progress=False)
    assert more.skipped == 4 and more.recorded == 2  # a third repeat adds only the repeat-2 fits


@pytest.mark.slow
def test_repeat_0_is_the_fit_a_run_without_repeats_makes(tmp_path):
    """Adding ``repeats`` to a config keeps its hashes and keys: the fits it has stay done."""
    without = load_config(seeded_config(tmp_path, None))
    run_config(without, progress=False)
    with_repeats = load_config(seeded_config(tmp_path, 2, name="again.yaml"))
    assert [v.config_hash for v in with_repeats.variants()] == [v.config_hash for v in without.variants()]
    summary = run_config(with_repeats, progress=False)
    assert summary.skipped == 2 and summary.recorded == 2


@pytest.mark.slow
def test_plan_puts_repeats_innermost_and_status_counts_them(tmp_path, capsys):
    path = seeded_config(tmp_path, 3)
    plan = make_plan(load_config(path))
    assert [(k.problem_id, k.repeat) for k in plan.keys] == [("p01", 0), ("p01", 1), ("p01", 2),
                                                             ("p02", 0), ("p02", 1), ("p02", 2)]  # fmt: skip
    assert main(["run", "-c", str(path), "--quiet", "--limit", "1"]) == 0
    capsys.readouterr()
    assert main(["status", "-c", str(path)]) == 0
    out = capsys.readouterr().out
    assert "repeats: 3 fits of each method on the same points" in out and "3 of 6 fits stored (50.0%), 3 pending" in out
    assert main(["status", "-c", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["repeats"] == 3 and [(r["planned"], r["ok"]) for r in status["rows"]] == [(6, 3)]
    assert main(["export", "--results", str(tmp_path / "results"), "-o", str(tmp_path / "out.csv")]) == 0
    import pandas as pd

    assert sorted(pd.read_csv(tmp_path / "out.csv")["repeat"]) == [0, 1, 2]


@pytest.mark.slow
def test_shards_of_a_run_with_repeats_merge_with_every_repeat(tmp_path, capsys):
    path = seeded_config(tmp_path, 2)
    for k in (1, 2):
        assert main(["run", "-c", str(path), "--shard", f"{k}/2", "--quiet"]) == 0
    assert main(["merge", *(str(tmp_path / "results" / f"shard-{k}-of-2") for k in (1, 2)),
                 "-o", str(tmp_path / "merged")]) == 0  # fmt: skip
    with ResultsStore.open_readonly(tmp_path / "merged") as store:
        frame = store.predictions_frame()
    assert sorted(zip(frame["problem_id"], frame["repeat"])) == [("p01", 0), ("p01", 1), ("p02", 0), ("p02", 1)]
    assert frame.groupby("problem_id")["internals"].apply(lambda s: len({i["seed"] for i in s})).tolist() == [2, 2]


@pytest.mark.slow
def test_a_store_written_before_keys_had_a_repeat_opens_and_resumes(tmp_path):
    """``main_schema3.sqlite`` was written by srbf at commit 0ceece3 (store schema 3) running
    ``main_schema3.yaml``, then scored: four fits, each with a trajectory step and metrics."""
    shutil.copy(DATA / "main_schema3.sqlite", tmp_path / "srbf.sqlite")
    config = load_config(DATA / "main_schema3.yaml").model_copy(update={"results": str(tmp_path)})
    summary = run_config(config, progress=False)
    assert summary.planned == 4 and summary.skipped == 4 and summary.pending == 0  # every fit is found done
    summary = run_config(config.model_copy(update={"repeats": 2}), progress=False)
    assert summary.skipped == 4 and summary.recorded == 4 and summary.ok == 4  # only the repeat-1 fits run
    with ResultsStore.open_readonly(tmp_path) as store:
        frame = store.predictions_frame()
        steps = store.trajectories_frame()
        scored = store.metrics_frame()
    old = frame[frame["repeat"] == 0]
    assert old["id"].tolist() == [1, 2, 3, 4] and sorted(frame["repeat"]) == [0] * 4 + [1] * 4
    assert set(steps["prediction_id"]) >= {1, 2, 3, 4} and scored["prediction_id"].tolist() == [1, 2, 3, 4]
    for problem in ("Nguyen-1", "Nguyen-2"):  # the new repeat was fitted on the points the old fit had
        hashes = frame[(frame["problem_id"] == problem) & (frame["method"] == "prior")]["data_hash"]
        assert hashes.nunique() == 1 and len(hashes) == 2


@pytest.mark.parametrize("key, value, message", [
    ("repeats", 0, "repeats: must be a positive integer, got 0"),
    ("repeats", 2.5, "repeats: must be a positive integer, got 2.5"),
    ("repeats", 10**6, "repeats: must be at most 1,000 (the limit), got 1000000"),
    ("checkpoints", 0, "checkpoints: must be a positive integer, got 0"),
    ("checkpoints", "many", "checkpoints: must be a positive integer, got 'many'"),
    ("checkpoints", 10**9, "checkpoints: must be at most 100,000 (the limit), got 1000000000"),
])  # fmt: skip
def test_bad_repeats_and_checkpoints_are_one_line_naming_the_key(key, value, message):
    with pytest.raises(ConfigError) as error:
        config_from_dict({"experiment": "e", "catalogs": "nguyen", "method": "linear", key: value}, "c.yaml")
    assert str(error.value) == f"c.yaml: {message}"


@pytest.mark.slow
def test_repeats_and_the_checkpoint_grid_are_stored_with_the_run(tmp_path):
    config = load_config(seeded_config(tmp_path, 2, checkpoints=12))
    assert (config.repeats, config.checkpoints) == (2, 12)
    defaults = config_from_dict({"experiment": "e", "catalogs": "nguyen", "method": "linear"})
    assert (defaults.repeats, defaults.checkpoints) == (1, 180)
    run_config(config, progress=False)
    with ResultsStore.open_readonly(config.results) as store:
        stored = store.campaigns_frame()["config"][0]["run"]
    assert stored["repeats"] == 2 and stored["checkpoints"] == 12
