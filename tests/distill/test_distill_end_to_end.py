"""`srbf run` and `srbf score` with built-in methods, then `srbf distill`, its core run by srbf, and
`srbf distill validate` and `srbf distill probes`: the real store, the real files."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from srbf.catalogs.loader import load_catalog
from srbf.cli import main

pytestmark = pytest.mark.slow

CONFIG = """
experiment: distill-e2e
seed: 0
catalogs: [nguyen, keijzer]
limit: 4
sampling: {n_support: 32, n_validation: 32, draws: 1, ood: true}
budgets: [8]
repeats: 2
checkpoints: 4
methods:
  - {name: linear, time_limit: 20, config_provenance: upstream_default, budget_knob: unused}
  - {name: prior, time_limit: 20, config_provenance: upstream_default, budget_knob: candidates}
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("distill")
    config = root / "c.yaml"
    config.write_text(CONFIG)
    results = root / "results"
    assert main(["run", "-c", str(config), "--results", str(results), "--workers", "2", "--quiet"]) == 0
    assert main(["score", "--results", str(results)]) == 0
    return root, results


def test_distill_writes_a_core_srbf_runs_and_validates(store, capsys):
    root, results = store
    core = root / "core.yaml"
    assert main(["distill", "--records", str(results), "--size", "3", "--probes", "linear,prior", "-o", str(core)]) == 0
    out = capsys.readouterr().out
    assert "3 of 8 eligible tasks" in out and "J = " in out
    catalog = load_catalog(core)  # admitted: every formula parses over its variables
    assert len(catalog) == 3
    made = catalog.meta["distill"]
    assert list(made["probes"]) == ["linear", "prior"] and made["size"] == 3
    assert made["terms"]["j"] == pytest.approx(0.45 * made["terms"]["coverage"] + 0.35 * made["terms"]["mean_info"]
                                               + 0.20 * made["terms"]["balance"])  # fmt: skip
    entry = catalog.entries[0]
    assert entry.meta["source"]["catalog"] in ("nguyen", "keijzer") and "info" in entry.meta["distill"]
    run = root / "run.yaml"
    run.write_text(yaml.safe_dump({"experiment": "on-core", "seed": 1, "catalogs": ["./core.yaml"],
                                   "sampling": {"n_support": 16, "n_validation": 16},
                                   "methods": [{"name": "linear", "budgets": [1]}]}))  # fmt: skip
    assert main(["run", "-c", str(run), "--results", str(root / "core-results"), "--quiet"]) == 0
    out_dir = root / "validation"
    assert main(["distill", "validate", "--core", str(core), "--records", str(results), "--draws", "10",
                 "-o", str(out_dir)]) == 0  # fmt: skip
    assert "| core | 1 |" in capsys.readouterr().out
    table = pd.read_csv(out_dir / "fidelity.csv")
    assert list(table["selector"])[:3] == ["core", "uniform_random", "family_stratified"] and len(table) == 7
    assert (out_dir / "fidelity.png").stat().st_size > 0


def test_probe_selection_says_what_is_missing(store, capsys):
    _, results = store
    # linear and prior are both structured_search: two methods, one paradigm
    assert main(["distill", "probes", "--records", str(results)]) == 2
    captured = capsys.readouterr()
    assert "linear" in captured.out and "H (exact)" in captured.out
    assert captured.err.count("\n") == 1 and "2 candidate method(s), a panel needs 4" in captured.err


def test_bad_input_is_one_line(store, tmp_path, capsys):
    _, results = store
    assert main(["distill", "--size", "3"]) == 2
    assert "needs --records DIR and --size N" in capsys.readouterr().err
    assert main(["distill", "--records", str(tmp_path / "none"), "--size", "3", "--probes", "a,b"]) == 2
    assert "no results store" in capsys.readouterr().err
    assert main(["distill", "--records", str(results), "--size", "3", "--probes", "linear,nope"]) == 2
    assert "--probes: nope not in the records" in capsys.readouterr().err
    assert main(["distill", "--records", str(results), "--size", "99", "--probes", "linear,prior"]) == 2
    assert "--size 99: the records have 8 eligible task(s)" in capsys.readouterr().err
    not_a_core = tmp_path / "plain.yaml"
    not_a_core.write_text(yaml.safe_dump({"srbf_catalog": 1, "name": "plain", "version": 1, "problems": [
        {"id": "a", "formula": "x", "variables": [{"name": "x", "range": [0, 1]}]}]}))  # fmt: skip
    assert main(["distill", "validate", "--core", str(not_a_core), "--records", str(results)]) == 2
    assert "meta.distill.probes: missing" in capsys.readouterr().err
