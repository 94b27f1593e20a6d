"""Real SR packages through `srbf run` on nguyen, each in its own environment, named in the config
by their roster names: predictions are stored, parse, and score. One test runs srbf's reference GP
on DEAP with gplearn, one bingo (added to the roster by issue 20; its incumbents are stored too).

Needs `srbf methods install gplearn deap_gp bingo` (``.ci/run`` does it); each test is skipped
where its environments are missing.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from recorded.adapter_checks import installed
from srbf.cli import main

pytestmark = pytest.mark.slow


def run_store_and_score(tmp_path, capsys, methods_yaml: str):
    """Run three nguyen problems with ``methods_yaml`` (the config's ``methods:`` list), score the
    store; return (predictions, metrics frame, trajectories) after checking every formula parses."""
    config = tmp_path / "roster.yaml"
    config.write_text(textwrap.dedent("""\
        experiment: roster-e2e
        catalogs: nguyen
        limit: 3
        sampling: {n_support: 128, n_validation: 128, draws: 1}
        methods:                  # roster methods by name: the adapter and env of their folders
        """) + textwrap.indent(textwrap.dedent(methods_yaml), "  "))
    results = tmp_path / "results"
    assert main(["run", "-c", str(config), "--results", str(results), "--workers", "2", "--quiet"]) == 0
    assert main(["score", "--results", str(results), "--quiet"]) == 0
    capsys.readouterr()

    from srbf.expr import parse
    from srbf.judge import JUDGE_VERSION
    from srbf.store import ResultsStore, metrics_long_frame

    with ResultsStore.open_readonly(results) as store:
        predictions = store.predictions_frame()
        trajectories = store.trajectories_frame()
    for row in predictions.itertuples():
        internals = json.loads(row.internals) if isinstance(row.internals, str) else (row.internals or {})
        hints = internals.get("parse", {}) if isinstance(internals, dict) else {}
        parse(row.expression, ["x1", "x2"], **hints)  # every stored formula reads back
    return predictions, metrics_long_frame(results, judge_version=JUDGE_VERSION), trajectories


@pytest.mark.skipif(not (installed("gplearn") and installed("deap_gp")),
                    reason="needs the gplearn and deap_gp environments (srbf methods install gplearn deap_gp)")
def test_gplearn_and_reference_gp_run_store_parse_and_score(tmp_path, capsys):
    predictions, frame, _ = run_store_and_score(tmp_path, capsys, """\
        - name: gplearn
          options: {params: {population_size: 200}}
          config_provenance: harness_tuned
          budgets: [1, 2]
        - {name: deap_gp, budgets: [1, 2]}
        """)
    assert len(predictions) == 2 * 3 * 2  # methods x problems x budgets, one row each
    assert set(predictions["status"]) == {"ok"}
    assert len(frame) == 12
    assert set(frame["method"]) == {"gplearn", "deap_gp"}
    assert frame["success"].sum() >= 10  # each fit returned a usable formula
    assert frame["r2_validation"].notna().sum() >= 10


@pytest.mark.skipif(not installed("bingo"), reason="needs the bingo environment (srbf methods install bingo)")
def test_bingo_runs_stores_its_incumbents_parses_and_scores(tmp_path, capsys):
    predictions, frame, trajectories = run_store_and_score(tmp_path, capsys, """\
        - {name: bingo, budgets: [10]}
        """)
    assert len(predictions) == 3 and set(predictions["status"]) == {"ok"}
    assert set(predictions["provenance"]) == {"upstream_default"}
    assert len(frame) == 3 and frame["success"].sum() == 3
    assert frame["r2_validation"].notna().sum() == 3
    assert len(trajectories) >= 3  # at least one incumbent per fit
