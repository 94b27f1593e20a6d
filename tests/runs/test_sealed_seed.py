"""Sealed draws (runs/sealed.py, store/sealed_table.py): ``seed: sealed`` draws with a seed kept in
the store, which a method that carries srbf's sampler cannot regenerate; ``srbf status
--reveal-seed`` shows it; exports carry it only once the run is complete; a public seed stays as
it was."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest
import yaml

from srbf.cli import main
from srbf.runs.config import config_from_dict
from srbf.runs.sealed import SealedError, sealed_seed
from srbf.runs.plan import make_plan
from srbf.store import ResultsStore, StoreError

# A cheat: it draws every problem of the catalog with the run seeds it guesses (0 .. 9, the public
# defaults) and compares the points with those it was given.
CHEAT = '''
import numpy as np
from srbf.catalogs.loader import load_catalog
from srbf.catalogs.sampling import ProblemSampler

def fit(X, y, *, budget, seed, variables, options, report):
    catalog = load_catalog("nguyen")
    for entry in catalog.entries[:3]:
        sampler = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version)
        for guess in range(10):
            for draw in range(2):
                problem = sampler.sample(seed=guess, draw=draw, n_support=len(X), n_validation=16)
                if problem.X_support.shape == X.shape and np.array_equal(problem.X_support, X):
                    return {"expression": entry.formula, "matched": entry.id}
    return {"expression": variables[0], "matched": None}
'''


def config_file(folder, *, seed, methods=None, name="run.yaml"):
    cheat = folder / "cheat.py"
    cheat.write_text(textwrap.dedent(CHEAT))
    path = folder / name
    path.write_text(yaml.safe_dump({
        "experiment": "sealed", "catalogs": ["nguyen"], "limit": 3, "seed": seed, "workers": 1,
        "sampling": {"n_support": 32, "n_validation": 16, "draws": 2},
        "methods": methods or [{"name": "cheat", "adapter": {"type": "file", "path": str(cheat)}, "budgets": [1]},
                               {"name": "linear", "budgets": [1]}],
        "results": str(folder / "results"),
    }))
    return path


def matched(results) -> list:
    with ResultsStore.open_readonly(results) as store:
        frame = store.predictions_frame(method="cheat")
    return [row.get("matched") for row in frame["internals"]]


def test_a_sealed_config_is_planned_only_with_its_store_s_seed():
    config = config_from_dict({"experiment": "q", "catalogs": "nguyen", "method": "linear", "seed": "sealed"})
    assert config.sealed and config.seed == "sealed" and config.to_dict()["seed"] == "sealed"
    with pytest.raises(SealedError):
        make_plan(config)
    resolved = config.with_seed(42)
    assert resolved.sealed and resolved.seed == 42 and resolved.to_dict()["seed"] == "sealed"
    assert make_plan(resolved).keys[0].seed == 42
    public = config_from_dict({"experiment": "q", "catalogs": "nguyen", "method": "linear"})
    assert not public.sealed and public.seed == 0 and public.to_dict()["seed"] == 0


@pytest.mark.slow
def test_a_public_seed_is_recovered_by_the_cheat_and_a_sealed_one_is_not(tmp_path, capsys):
    public = tmp_path / "public"
    public.mkdir()
    assert main(["run", "-c", str(config_file(public, seed=0)), "--quiet"]) == 0
    assert sorted(matched(public / "results")) == sorted(["Nguyen-1", "Nguyen-2", "Nguyen-3"] * 2)  # every draw

    sealed = tmp_path / "sealed"
    sealed.mkdir()
    path = config_file(sealed, seed="sealed")
    assert main(["run", "-c", str(path), "--quiet"]) == 0
    assert matched(sealed / "results") == [None] * 6
    with ResultsStore.open_readonly(sealed / "results") as store:
        held, secret = store.sealed(), store.stored_secret()
        seeds = set(store.predictions_frame()["seed"])
        configs = [c.config for c in store.campaign_rows()]
    assert held.complete and held.seed == sealed_seed(secret) and seeds == {held.seed} and held.seed > 2**20
    assert all(c["run"]["seed"] == "sealed" for c in configs) and str(held.seed) not in str(configs)
    capsys.readouterr()
    assert main(["status", "-c", str(path), "--reveal-seed"]) == 0
    out = capsys.readouterr().out
    assert f"run seed: {held.seed} (sealed, kept in the store; run complete" in out and "6 of 12 fits" not in out
    assert "12 of 12 fits stored" in out
    assert main(["status", "-c", str(config_file(public, seed=0)), "--reveal-seed"]) == 0
    assert "run seed: 0 (public: the config's)" in capsys.readouterr().out
    assert main(["status", "--results", str(sealed / "results"), "--reveal-seed"]) == 0  # the store alone
    assert f"run seed: {held.seed} (sealed, kept in the store; run complete" in capsys.readouterr().out


@pytest.mark.slow
def test_exports_carry_the_sealed_seed_only_once_the_run_is_complete(tmp_path, capsys):
    path = config_file(tmp_path, seed="sealed")
    assert main(["run", "-c", str(path), "--sweep-filter", "method=linear", "--quiet"]) == 0  # half the run
    assert main(["export", "--results", str(tmp_path / "results"), "-o", str(tmp_path / "half.csv")]) == 0
    assert main(["export", "--results", str(tmp_path / "results"), "-o", str(tmp_path / "half.parquet")]) == 0
    for frame in (pd.read_csv(tmp_path / "half.csv"), pd.read_parquet(tmp_path / "half.parquet")):
        assert len(frame) == 6 and frame["seed"].isna().all()
    capsys.readouterr()
    assert main(["status", "-c", str(path), "--reveal-seed"]) == 0
    assert "run not complete: exports withhold it" in capsys.readouterr().out
    assert main(["run", "-c", str(path), "--quiet"]) == 0  # the rest: the run is complete
    assert main(["export", "--results", str(tmp_path / "results"), "-o", str(tmp_path / "all.csv")]) == 0
    with ResultsStore.open_readonly(tmp_path / "results") as store:
        seed = store.sealed().seed
    assert list(pd.read_csv(tmp_path / "all.csv")["seed"]) == [seed] * 12


@pytest.mark.slow
def test_one_store_holds_one_kind_of_run(tmp_path, capsys):
    path = config_file(tmp_path, seed=0, methods=[{"name": "linear", "budgets": [1]}])
    assert main(["run", "-c", str(path), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["run", "-c", str(path), "--sealed", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds 6 fit(s) of a public seed; give a sealed run its own --results" in err and err.count("\n") == 1
    other = tmp_path / "other"
    assert main(["run", "-c", str(path), "--sealed", "--results", str(other), "--quiet"]) == 0
    assert main(["run", "-c", str(path), "--results", str(other), "--quiet"]) == 2
    assert "holds a sealed run; resume it with seed: sealed" in capsys.readouterr().err
    with ResultsStore(other) as store, pytest.raises(StoreError):
        store.claim_sealed(store.sealed().seed + 1)


@pytest.mark.slow
def test_the_shards_of_a_sealed_run_share_its_seed_and_merge(tmp_path, capsys):
    path = config_file(tmp_path, seed="sealed", methods=[{"name": "linear", "budgets": [1]}])
    for k in (1, 2):
        assert main(["run", "-c", str(path), "--shard", f"{k}/2", "--quiet"]) == 0
    shards = [tmp_path / "results" / f"shard-{k}-of-2" for k in (1, 2)]
    seeds = []
    for shard in shards:
        with ResultsStore.open_readonly(shard) as store:
            seeds.append(store.sealed())
    assert seeds[0] == seeds[1] and seeds[0].complete
    assert main(["merge", *map(str, shards), "-o", str(tmp_path / "merged"), "--no-score"]) == 0
    with ResultsStore.open_readonly(tmp_path / "merged") as store:
        assert store.sealed() == seeds[0]
