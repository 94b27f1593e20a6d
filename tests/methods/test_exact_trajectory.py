"""The exact-trajectory declaration, proved for every method that makes it (srbf.runs.ladder).

A method whose method.yaml says ``exact_trajectory: true`` has its ladder stored from one fit at
the largest budget. The proof: the same config run twice through ``srbf run``'s driver, once with
every budget its own fit (``separate_ladder``) and once as one fit per ladder, on 3 problems x 2
seeds (repeats), under one secret (so the methods get the same seeds), must store the same formula for every key, and the one-fit run must have read
every smaller rung from the trajectory. A method whose proof fails must lose the declaration.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from recorded.adapter_checks import method_python
from srbf.catalogs.loader import load_catalog
from srbf.expr import compile_expr, parse
from srbf.methods.roster import ROSTER
from srbf.runs.config import config_from_dict
from srbf.runs.driver import run_config
from srbf.runs.ladder import one_fit_ladders
from srbf.runs.plan import make_plan
from srbf.runs.shards import Shard
from srbf.store import ResultsStore

DECLARING = sorted(name for name, spec in ROSTER.items() if spec.exact_trajectory)
# smaller searches than the methods' defaults, to keep the proof short (the property does not depend on them)
FAST_OPTIONS = {"gplearn": {"params": {"population_size": 200}}, "deap_gp": {"population_size": 100}}
LADDER = [1, 2, 4, 8]


def _config(method: str, results, **extra) -> dict:
    entry = {"name": method, "budgets": LADDER, "options": FAST_OPTIONS.get(method, {}), **extra}
    return {"experiment": "exact", "catalogs": "feynman", "limit": 3, "repeats": 2, "workers": 1, "seed": 7,
            "results": str(results), "sampling": {"draws": 1, "n_support": 128, "n_validation": 16},
            "methods": [entry]}  # fmt: skip


def _stored(results) -> dict:
    with ResultsStore(results) as store:
        frame = store.predictions_frame()
    return {(r.problem_id, r.repeat, int(r.budget)): r for r in frame.itertuples()}


def test_the_roster_declares_it_for_gplearn_and_deap_gp():
    assert {"gplearn", "deap_gp"} <= set(DECLARING)


@pytest.mark.slow
@pytest.mark.parametrize("method", DECLARING)
def test_one_fit_stores_what_separate_fits_return(method, tmp_path):
    if method_python(method) is None:
        pytest.skip(f"no {method} environment ($SRBF_HOME/envs/{method})")
    # one secret for both stores (the seeds methods get are derived under it), as shards share one
    quiet = {"progress": False, "log": lambda note: None, "shard": Shard.parse("1/1"), "secret_file": tmp_path / "secret"}
    separate = run_config(config_from_dict(_config(method, tmp_path / "separate")), separate_ladder=True, **quiet)
    one_fit = run_config(config_from_dict(_config(method, tmp_path / "one_fit")), **quiet)
    assert separate.ok == one_fit.ok == 3 * 2 * len(LADDER)
    apart, together = _stored(tmp_path / "separate"), _stored(tmp_path / "one_fit")
    assert apart.keys() == together.keys()
    for key, fitted in apart.items():
        read = together[key]
        assert read.expression == fitted.expression, f"{method} {key}: the trajectory's incumbent is not the fit's"
        assert read.from_trajectory == (key[2] < max(LADDER)) and not fitted.from_trajectory
        if read.from_trajectory:
            assert math.isnan(read.cpu_seconds) and read.wall_seconds <= together[(*key[:2], max(LADDER))].wall_seconds
    # and their predictions agree (evaluated by srbf from each stored formula)
    catalog = {e.id: e for e in load_catalog("feynman").entries}
    rng = np.random.default_rng(0)
    for key, fitted in apart.items():
        entry = catalog[key[0]]
        variables = tuple(v.name for v in entry.variables)
        X = rng.uniform(1, 2, (32, len(variables)))
        with np.errstate(all="ignore"):
            a = compile_expr(parse(fitted.expression, variables), variables)(X)
            b = compile_expr(parse(together[key].expression, variables), variables)(X)
        np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)


def test_a_method_without_the_declaration_gets_separate_fits(tmp_path):
    undeclared = next(name for name, spec in sorted(ROSTER.items()) if not spec.exact_trajectory)
    config = config_from_dict({**_config(undeclared, tmp_path), "methods": [
        {"name": undeclared, "budgets": LADDER}, {"name": "gplearn", "budgets": LADDER},
        {"name": "deap_gp", "budgets": LADDER, "ladder": "separate"}]})  # fmt: skip
    ladders = {m.name: m.ladder for m in config.methods}
    assert ladders == {undeclared: "separate", "gplearn": "one_fit", "deap_gp": "separate"}
    plan = make_plan(config)
    folded = one_fit_ladders(plan.fits)
    by_method = {name: [f for f in folded if f.key.method == name] for name in ladders}
    assert len(by_method[undeclared]) == len(by_method["deap_gp"]) == 3 * 2 * len(LADDER)
    assert all(not f.rungs for f in by_method[undeclared] + by_method["deap_gp"])
    assert len(by_method["gplearn"]) == 3 * 2  # one fit per ladder, at its largest budget
    assert all(f.key.budget == max(LADDER) and [r.key.budget for r in f.rungs] == LADDER[:-1]
               for f in by_method["gplearn"])  # fmt: skip
