"""Every stored fit is reproducible from its row (runs/replay.py, core.key_text): the key's values
come back with their types (a budget 5 is the integer 5), the method seed re-derived from a row
is the seed the method received, the points re-drawn from a row hash to its data hash, and fits
of deterministic methods re-run from their rows alone give the same formulas."""

from __future__ import annotations

import json
import random
import textwrap

import pytest

from srbf.core import TaskKey, canonical_budget, key_text
from srbf.methods.isolation import method_seed
from srbf.runs.config import config_from_dict
from srbf.runs.driver import run_config
from srbf.runs.replay import DETERMINISTIC, Rows, replay
from srbf.store import ResultsStore, row_key

pytestmark = pytest.mark.slow

ECHO = '''
def fit(X, y, *, budget, seed, variables, options, report):
    return {"expression": variables[0], "seed_seen": seed, "budget_seen": repr(budget)}
'''
BUDGETS = [0.5, 5, 2**40, 2**62]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A run of an echoing method (it returns the seed it got) and of the deterministic built-ins,
    over a ladder of integer and fractional budgets, two draws, two repeats."""
    folder = tmp_path_factory.mktemp("replay")
    method = folder / "echo.py"
    method.write_text(textwrap.dedent(ECHO))
    config = config_from_dict({
        "experiment": "replay", "catalogs": ["nguyen"], "limit": 2, "repeats": 2, "seed": 12345,
        "sampling": {"n_support": 32, "n_validation": 16, "draws": 2},
        "methods": [{"name": "echo", "adapter": {"type": "file", "path": str(method)}, "budgets": BUDGETS},
                    {"name": "linear", "budgets": [1, 5]},
                    {"name": "enumeration", "budgets": [3]},
                    {"name": "prior", "budgets": [20]}],
        "results": str(folder / "results"), "workers": 2,
    })
    summary = run_config(config, progress=False, log=lambda text: None)
    assert summary.recorded == summary.planned == 2 * 2 * 2 * (len(BUDGETS) + 2 + 1 + 1)
    with ResultsStore(folder / "results") as store:
        secret = store.secret()
        rows = store.prediction_rows()
        campaigns = store.campaign_rows()
    return rows, campaigns, secret


def test_a_budget_keeps_its_type_through_the_store(stored):
    rows, _, _ = stored
    budgets = {canonical_budget(r.budget) for r in rows}
    assert {type(b) for b in (row_key(r).budget for r in rows if r.method == "echo")} == {int, float}
    assert {b for b in budgets if isinstance(b, int)} == {1, 3, 5, 20, 2**40, 2**62}
    for row in rows:
        key = row_key(row)
        assert type(key.budget) is type(canonical_budget(key.budget))
        assert key_text(key) == key_text(TaskKey(**{**key.__dict__, "budget": float(key.budget)}))


def test_every_stored_seed_is_re_derived_from_its_row(stored):
    rows, _, secret = stored
    echoed = [r for r in rows if r.method == "echo"]
    assert len(echoed) == 2 * 2 * 2 * len(BUDGETS)
    for row in echoed:
        internals = json.loads(row.internals)
        assert method_seed(secret, row_key(row)) == internals["seed_seen"], row
        assert internals["budget_seen"] == repr(row_key(row).budget)  # the method got the budget as the key holds it
    seeds = {}
    for r in echoed:  # every fit its own seed, but every rung of a ladder the same one (core.key_text)
        seeds.setdefault((r.problem_id, r.draw, r.condition, r.repeat), set()).add(json.loads(r.internals)["seed_seen"])
    assert all(len(s) == 1 for s in seeds.values()) and len(set.union(*seeds.values())) == len(seeds)
    assert {r.seed for r in rows} == {12345}


def test_every_row_agrees_with_its_re_drawn_points(stored):
    rows, campaigns, secret = stored
    checker = Rows(campaigns, secret)
    assert [(r.id, checker.problem(r)) for r in rows if checker.problem(r) is not None] == []


def test_sampled_deterministic_fits_are_reproduced_from_their_rows_alone(stored):
    rows, campaigns, secret = stored
    checker = Rows(campaigns, secret)
    deterministic = [r for r in rows if r.method in DETERMINISTIC]
    sample = random.Random(7).sample(deterministic, 6) + [r for r in deterministic if r.method == "prior"][:2]
    for row in sample:
        again = replay(checker, row)
        assert (again.status, again.expression) == (row.status, row.expression), row
    assert {r.method for r in sample} >= {"linear", "enumeration", "prior"}
