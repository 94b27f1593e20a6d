"""`srbf run` with built-in methods, then `srbf arena score`: the real store, the real files."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from srbf.cli import main
from srbf.core import TaskKey

HAS_REPEATS = "repeat" in {f.name for f in dataclasses.fields(TaskKey)}

CONFIG = """
experiment: arena-e2e
seed: 0
catalogs: [nguyen]
limit: 2
sampling: {{n_support: 32, n_validation: 32, draws: 1, noise: [0.0, 0.01], ood: true}}
budgets: [8]
checkpoints: 6
{repeats}
methods:
  - {{name: linear, time_limit: 20, config_provenance: upstream_default, budget_knob: unused}}
  - {{name: prior, time_limit: 20, config_provenance: upstream_default, budget_knob: candidates}}
"""


def _run(tmp_path, repeats: str = "") -> tuple:
    config = tmp_path / "c.yaml"
    text = CONFIG.format(repeats=repeats)
    if not HAS_REPEATS:
        text = text.replace("checkpoints: 6\n", "")  # the run side's config keys (repeats, checkpoints) come with it
    config.write_text(text)
    results, out = tmp_path / "results", tmp_path / "arena"
    assert main(["run", "-c", str(config), "--results", str(results), "--workers", "2", "--quiet"]) == 0
    assert main(["arena", "score", "--results", str(results), "-o", str(out), "--replicates", "200"]) == 0
    return results, out


@pytest.mark.slow
def test_arena_score_on_a_real_run(tmp_path, capsys):
    _, out = _run(tmp_path)
    printed = capsys.readouterr()
    assert "the noise robustness table" in printed.out
    for name in ("profile.md", "profile.csv", "robustness.md", "robustness.csv", "runs.csv", "stability.csv",
                 "judgments.csv", "figures/profile-linear.png", "figures/profile-prior.png"):  # fmt: skip
        assert (out / name).is_file(), name
    profile = pd.read_csv(out / "profile.csv")
    assert sorted(set(profile["method"])) == ["linear", "prior"]
    assert len(profile) == 4  # two methods x two noise levels
    for axis in ("id", "ood", "sym", "min", "eff"):
        assert profile[axis].between(0, 100).all()
        assert (profile[f"{axis}_low"] <= profile[axis] + 1e-9).all() and (profile[axis] <= profile[f"{axis}_high"] + 1e-9).all()
    assert profile["stab"].isna().all()
    assert profile["notes"].str.contains("STAB: needs 2 repeats per task").all()
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 8 and runs["repeat"].eq(0).all()
    judgments = pd.read_csv(out / "judgments.csv")
    assert judgments["reason"].notna().all() and len(judgments) == 8
    assert "| ID clean | ID 1 % | ID Δ 1 % |" in (out / "robustness.md").read_text()
    # read where every verdict command reads: these fits end far below 1 s, so at each method's largest budget
    assert (out / "profile.md").read_text().startswith(
        "Reading: reading at each method's largest budget (chosen from the data: no time mark")
    assert "reading at each method's largest budget" in printed.err


def test_a_missing_axis_is_a_gap_in_the_radar():
    import math

    from srbf.arena.figures import outline

    closed = outline([50.0, float("nan"), 20.0, None, 10.0, 70.0])
    assert len(closed) == 7 and closed[-1] == 50.0
    assert math.isnan(closed[1]) and math.isnan(closed[3])  # gaps, not zeros
    assert math.isnan(outline([None, 1, 2, 3, 4, 5])[-1])  # the closing point too


def test_arena_score_without_a_store_is_one_line(tmp_path, capsys):
    assert main(["arena", "score", "--results", str(tmp_path / "none"), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("srbf: error: no results store at") and err.count("\n") == 1


@pytest.mark.skipif(not HAS_REPEATS, reason="needs repeats (TaskKey.repeat): the run side of #17")
@pytest.mark.slow
def test_arena_score_with_repeats_measures_stab(tmp_path):
    _, out = _run(tmp_path, repeats="repeats: 2")
    profile = pd.read_csv(out / "profile.csv").set_index(["method", "condition"])
    assert profile["stab"].between(0, 100).all()
    stability = pd.read_csv(out / "stability.csv")
    assert stability["repeats"].eq(2).all() and stability["note"].isna().all()
    # linear is deterministic: its two repeats give the same formula, judged the same answer
    linear = stability[stability["method"] == "linear"]
    assert linear["C"].eq(1.0).all() and linear["N"].eq(1.0).all()
    pairs = pd.read_csv(out / "judgments.csv").query("kind == 'repeats'")
    assert len(pairs) == len(stability) and pairs["reason"].notna().all()


@pytest.mark.slow
def test_the_axes_are_metrics_of_srbf_analyze(tmp_path):
    """run, score, analyze --metric arena_id: the leaderboard's value is the stored axes' mean;
    a run without out-of-range points has no OOD value in the report (undefined, not 0)."""
    from srbf.judge import JUDGE_VERSION
    from srbf.store import metrics_long_frame

    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.format(repeats="").replace("noise: [0.0, 0.01], ood: true", "noise: [0.0], ood: false"))
    results, report = tmp_path / "results", tmp_path / "report"
    assert main(["run", "-c", str(config), "--results", str(results), "--workers", "2", "--quiet"]) == 0
    assert main(["score", "--results", str(results), "--workers", "1"]) == 0
    assert main(["analyze", "--results", str(results), "--metric", "arena_id", "--metric", "arena_ood",
                 "--at-budget", "max", "-o", str(report)]) == 0  # fmt: skip
    stored = metrics_long_frame(results, judge_version=JUDGE_VERSION)
    assert stored["arena_ood"].isna().all() and stored["arena_id"].between(0, 1).all()
    board = pd.read_csv(report / "tables" / "leaderboard.csv").set_index(["method", "metric"])
    for method, rows in stored.groupby("method"):  # one set: the combined value is the mean over its problems
        assert board.loc[(method, "arena_id"), "estimate"] == pytest.approx(rows["arena_id"].mean())
        assert pd.isna(board.loc[(method, "arena_ood"), "estimate"]) and board.loc[(method, "arena_ood"), "n_problems"] == 0
    assert "| arena_id (n) | arena_ood (n) |" in (report / "index.md").read_text()
