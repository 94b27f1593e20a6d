"""Two real SR packages (srbf's reference GP on DEAP, and gplearn) through `srbf run` on nguyen,
each in its own environment, named in the config by their roster names: predictions are
stored, parse, and score.

Needs `srbf methods install gplearn deap_gp` (``.ci/run`` does it); skipped where those
environments are missing.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from recorded.adapter_checks import installed
from srbf.cli import main

pytestmark = pytest.mark.skipif(
    not (installed("gplearn") and installed("deap_gp")),
    reason="needs the gplearn and deap_gp environments (srbf methods install gplearn deap_gp)",
)


def test_gplearn_and_reference_gp_run_store_parse_and_score(tmp_path, capsys):
    config = tmp_path / "roster.yaml"
    config.write_text(textwrap.dedent("""\
        experiment: roster-e2e
        catalogs: nguyen
        limit: 3
        sampling: {n_support: 128, n_validation: 128, draws: 1}
        methods:                  # roster methods by name: the adapter and env of their folders
          - name: gplearn
            options: {params: {population_size: 200}}
            config_provenance: harness_tuned
            budgets: [1, 2]
          - {name: deap_gp, budgets: [1, 2]}
        """))
    results = tmp_path / "results"
    assert main(["run", "-c", str(config), "--results", str(results), "--workers", "2", "--quiet"]) == 0
    assert main(["score", "--results", str(results), "--quiet"]) == 0
    capsys.readouterr()

    from srbf.expr import parse
    from srbf.judge import JUDGE_VERSION
    from srbf.store import metrics_long_frame
    from srbf.store import ResultsStore

    with ResultsStore.open_readonly(results) as store:
        predictions = store.predictions_frame()
    assert len(predictions) == 2 * 3 * 2  # methods x problems x budgets, one row each
    assert set(predictions["status"]) == {"ok"}
    for row in predictions.itertuples():
        internals = json.loads(row.internals) if isinstance(row.internals, str) else (row.internals or {})
        hints = internals.get("parse", {}) if isinstance(internals, dict) else {}
        parse(row.expression, ["x1", "x2"], **hints)  # every stored formula reads back
    frame = metrics_long_frame(results, judge_version=JUDGE_VERSION)
    assert len(frame) == 12
    assert set(frame["method"]) == {"gplearn", "deap_gp"}
    assert frame["success"].sum() >= 10  # each fit returned a usable formula
    assert frame["r2_validation"].notna().sum() >= 10
