"""One answer whatever the entry point: `srbf judge`, `srbf score` and `srbf.judge.score()` give a
prediction of a catalog problem the same metrics, positive variables and target taken from the
catalog entry by all three (the corpus: mutants of a few shipped formulas, judge/mutations.py)."""

from __future__ import annotations

import json

import pytest

from srbf.catalogs.admission import parse_entry
from srbf.catalogs.loader import load_catalog
from srbf.catalogs.sampling import sample_problem
from srbf.cli import main
from srbf.core import FitResult, TaskKey
from srbf.expr import to_infix
from srbf.judge import AXIS_KEYS, JUDGE_VERSION, METRIC_KEYS, jsonable, score
from srbf.judge.data import positive_variables
from srbf.judge.mutations import mutants
from srbf.judge.scoring_pass import score_store
from srbf.store import ResultsStore

CASES = [("feynman", "I.44.4"), ("feynman", "I.12.11"), ("feynman", "II.38.14"), ("feynman", "I.39.22"),
         ("nguyen", "Nguyen-5"), ("livermore", "Livermore-10")]  # fmt: skip
COMPARED = [key for key in METRIC_KEYS if key not in AXIS_KEYS and key != "srbench_symbolic_solution"]


def _corpus():
    out = []
    for name, problem_id in CASES:
        catalog = load_catalog(name)
        entry = catalog.entry(problem_id)
        found = mutants(parse_entry(entry), list(entry.variable_names), entry.variables,
                        positive_variables(entry.variables), seed=len(out))  # fmt: skip
        predictions = [entry.formula] + [to_infix(m.tree) for m in found if m.kind != "rename_variables"]
        out.append((catalog, entry, predictions))
    return out


@pytest.fixture(scope="module")
def scored_three_ways(tmp_path_factory):
    root = tmp_path_factory.mktemp("entry") / "results"
    corpus = _corpus()
    ids = {}
    with ResultsStore(root) as store:
        sampling = {"n_support": [64], "n_validation": 32, "draws": 1, "noise": [0.0], "ood": False}
        config = {"run": {"catalogs": sorted({c.name for c, _, _ in corpus}), "seed": 0, "sampling": sampling}}
        for catalog, entry, predictions in corpus:
            problem = sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, n_support=64, n_validation=32)
            for k, prediction in enumerate(predictions):
                method = f"m{k}"
                campaign = store.start_campaign("direct", {**config, "variant": {"label": method}}, f"hash-{method}",
                                                "harness_tuned", git=None)  # fmt: skip
                key = TaskKey(method, f"hash-{method}", catalog.name, catalog.version, entry.id, 0, 1.0,
                              "n_support=64;noise=0", 0)  # fmt: skip
                ids[(entry.id, k)] = store.record(key, FitResult("ok", prediction, wall_seconds=0.1),
                                                  campaign_id=campaign, data_hash=problem.data_hash)  # fmt: skip
    summary = score_store(root, workers=1, progress=False)
    assert summary.ok, summary.text()
    with ResultsStore.open_readonly(root) as store:
        frame = store.metrics_frame(JUDGE_VERSION, expand=False)
    stored = {int(row["prediction_id"]): row["metrics"] for _, row in frame.iterrows()}
    return corpus, ids, stored, tmp_path_factory.mktemp("npz")


@pytest.mark.slow
def test_srbf_judge_srbf_score_and_the_library_agree(scored_three_ways, capsys):
    corpus, ids, stored, folder = scored_three_ways
    compared = 0
    for catalog, entry, predictions in corpus:
        data = folder / f"{catalog.name}-{entry.id}.npz"
        assert main(["sample", catalog.name, entry.id, "--n-support", "64", "--n-validation", "32", "-o", str(data)]) == 0
        problem = sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, n_support=64, n_validation=32)
        known = ", ".join(sorted(positive_variables(entry.variables))) or "none"
        for k, prediction in enumerate(predictions):
            library = score(entry.formula, prediction, problem)  # no positive= given: the entry's
            assert library["positive_variables"] == f"{known} (catalog {catalog.name}, {entry.id})"
            capsys.readouterr()
            assert main(["judge", f"--truth={entry.formula}", f"--prediction={prediction}", "--data", str(data), "--json"]) == 0
            command = json.loads(capsys.readouterr().out)
            assert command["positive_variables"] == library["positive_variables"]
            pass_record = stored[ids[(entry.id, k)]]
            for key in COMPARED:
                values = {"library": library[key], "srbf judge": command[key], "srbf score": pass_record[key]}
                plain = {where: jsonable({key: v})[key] for where, v in values.items()}
                assert len({json.dumps(v) for v in plain.values()}) == 1, (entry.id, prediction, key, plain)
            compared += 1
    assert compared >= 40


def test_without_a_catalog_entry_the_record_says_none_were_given():
    data = {"X_support": [[1.0], [2.0]], "y_support": [1.0, 2.0], "X_validation": [[3.0]], "y_validation": [3.0]}
    assert score("x0", "x0", data)["positive_variables"] == "none given"
    assert score("x0", "x0", data, positive=["x0"])["positive_variables"] == "x0 (given)"
