"""Expanding a config: sweeps (named axes zip, unnamed ones form a grid), budget ladders, data
conditions, and the configuration hash (stable under key order, sensitive to what a fit runs with)."""

import hashlib
import shutil

import pytest

from srbf.runs.config import ConfigError, config_from_dict, load_config
from srbf.core import TaskKey
from srbf.runs.sweeps import HASH_SCHEME, Condition, canonical_json, expand, iter_cells, sweep_points

BASE = {"experiment": "q", "catalogs": "nguyen", "method": "prior"}


def config(**changes):
    return config_from_dict({**BASE, **changes})


def prior(**fields):
    return {"name": "prior", **fields}


def swept(variants):
    return [dict(v.swept) for v in variants]


# --- sweeps -------------------------------------------------------------------------------------


def test_no_sweeps_one_variant_per_method():
    variants = config(method=None, methods=["prior", "linear"]).variants()
    assert [v.name for v in variants] == ["prior", "linear"]
    assert all(v.swept == () for v in variants)
    assert [v.label for v in variants] == ["prior", "linear"]


def test_unnamed_sweeps_form_a_grid_first_sweep_outermost():
    variants = config(sweeps=[{"option": "max_depth", "values": [2, 3]},
                              {"option": "const_prob", "values": [0.1, 0.2, 0.3]}]).variants()  # fmt: skip
    assert swept(variants) == [{"max_depth": d, "const_prob": c} for d in (2, 3) for c in (0.1, 0.2, 0.3)]
    assert len({v.config_hash for v in variants}) == 6
    assert variants[0].label == "prior[max_depth=2, const_prob=0.1]"


def test_sweeps_on_one_axis_advance_together():
    variants = config(sweeps=[{"option": "max_depth", "values": [2, 3, 4], "axis": "size"},
                              {"option": "max_size", "values": [7, 15, 31], "axis": "size"}]).variants()  # fmt: skip
    assert swept(variants) == [{"max_depth": 2, "max_size": 7}, {"max_depth": 3, "max_size": 15},
                               {"max_depth": 4, "max_size": 31}]  # fmt: skip


def test_named_axis_crossed_with_unnamed_sweep():
    variants = config(sweeps=[{"option": "max_depth", "values": [2, 3], "axis": "size"},
                              {"option": "restarts", "values": [1, 3, 5]},
                              {"option": "max_size", "values": [7, 15], "axis": "size"}]).variants()  # fmt: skip
    assert swept(variants) == [
        {"max_depth": d, "restarts": r, "max_size": s} for d, s in ((2, 7), (3, 15)) for r in (1, 3, 5)
    ]
    assert [opt for opt, _ in variants[0].swept] == ["max_depth", "restarts", "max_size"]  # sweep order


def test_mismatched_axis_lengths_are_an_error_at_the_sweep():
    with pytest.raises(ConfigError) as caught:
        config(sweeps=[{"option": "a", "values": [1, 2], "axis": "z"}, {"option": "b", "values": [1, 2, 3], "axis": "z"}])
    (line,) = str(caught.value).splitlines()
    assert line.startswith("<dict>: sweeps[1].values: axis 'z' zips this sweep (3 values)")
    assert "option 'a' (2 values)" in line


def test_method_and_top_level_sweeps_share_axes():
    with pytest.raises(ConfigError, match=r"methods\[1\]\.sweeps\[0\]\.values: axis 'z'"):
        config(method=None, methods=["linear", prior(sweeps=[{"option": "b", "values": [1], "axis": "z"}])],
               sweeps=[{"option": "a", "values": [1, 2], "axis": "z"}])  # fmt: skip
    variants = config(sweeps=[{"option": "a", "values": [1, 2], "axis": "z"}],
                      method=prior(sweeps=[{"option": "b", "values": [3, 4], "axis": "z"}])).variants()  # fmt: skip
    assert swept(variants) == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]


def test_top_level_sweeps_apply_to_every_method():
    c = config(method=None, methods=["linear", prior(sweeps=[{"option": "restarts", "values": [1, 2]}])],
               sweeps=[{"option": "seedless", "values": [True, False]}])  # fmt: skip
    by_method = {}
    for v in c.variants():
        by_method.setdefault(v.name, []).append(dict(v.swept))
    assert by_method["linear"] == [{"seedless": True}, {"seedless": False}]
    assert len(by_method["prior"]) == 4


def test_variant_options_merge_fixed_and_swept():
    (v1, v2) = config(method=prior(options={"max_depth": 3}), sweeps=[{"option": "restarts", "values": [1, 2]}]).variants()
    assert dict(v1.options) == {"max_depth": 3, "restarts": 1}
    assert dict(v2.options) == {"max_depth": 3, "restarts": 2}
    with pytest.raises(TypeError):
        v1.options["restarts"] = 9  # read-only


def test_sweep_points_without_sweeps_is_one_empty_point():
    assert sweep_points([]) == [()]


# --- budgets and conditions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "budgets, ladder",
    [
        ({"powers_of_two": [0, 6]}, (1, 2, 4, 8, 16, 32, 64)),
        ({"powers_of_two": [-2, 1]}, (0.25, 0.5, 1, 2)),
        ({"powers_of_two": [3, 3]}, (8,)),
        ([8, 1, 4], (1, 4, 8)),  # a ladder is ascending
        (5, (5,)),
        ([0.5, 2.0], (0.5, 2)),
    ],
)
def test_budget_ladders(budgets, ladder):
    (v,) = config(budgets=budgets).variants()
    assert v.budgets == ladder
    assert [type(b) for b in v.budgets] == [type(b) for b in ladder]


def test_method_budgets_override_the_config_ladder():
    c = config(method=None, budgets=[1, 2], methods=["linear", prior(budgets={"powers_of_two": [0, 3]})])
    assert [v.budgets for v in c.variants()] == [(1, 2), (1, 2, 4, 8)]


def test_conditions_cross_support_sizes_and_noise_levels():
    (v,) = config(sampling={"n_support": [64, 512], "noise": [0, 0.01, 0.1]}).variants()
    assert v.conditions == tuple(Condition(n, s) for n in (64, 512) for s in (0.0, 0.01, 0.1))
    assert [c.text for c in v.conditions[:3]] == [
        "n_support=64;noise=0", "n_support=64;noise=0.01", "n_support=64;noise=0.1",
    ]  # fmt: skip


def test_cells_iterate_variants_budgets_conditions():
    c = config(budgets=[1, 2, 4], sampling={"noise": [0, 0.1]}, sweeps=[{"option": "restarts", "values": [1, 2]}])
    cells = list(iter_cells(c))
    assert len(cells) == 2 * 3 * 2 == len(list(c.cells()))
    first = cells[0]
    assert (dict(first.variant.swept), first.budget, first.condition.text) == ({"restarts": 1}, 1, "n_support=512;noise=0")
    assert (cells[1].budget, cells[1].condition.noise) == (1, 0.1)
    assert cells[2].budget == 2
    key = TaskKey(first.variant.name, first.variant.config_hash, "nguyen", 1, "Nguyen-1", 0,
                  float(first.budget), first.condition.text, c.seed)  # fmt: skip
    assert key.method == "prior" and len(key.config_hash) == 64


# --- the configuration hash ---------------------------------------------------------------------


def only_hash(**changes):
    (variant,) = config(**changes).variants()
    return variant.config_hash


def test_hash_is_sha256_of_the_canonical_payload():
    (v,) = config(method=prior(options={"max_depth": 3}, time_limit=60)).variants()
    payload = {"scheme": HASH_SCHEME, "adapter": {"type": "builtin", "name": "prior"},
               "options": {"max_depth": 3}, "time_limit": 60.0}  # fmt: skip
    assert dict(v.hash_payload) == payload
    assert v.config_hash == hashlib.sha256(canonical_json(payload).encode()).hexdigest()
    # Pinned: a change to the canonical form must be deliberate (and bump HASH_SCHEME).
    assert canonical_json(payload) == (
        '{"adapter":{"name":"prior","type":"builtin"},"options":{"max_depth":3},'
        '"scheme":"srbf.config/1","time_limit":60.0}'
    )


def test_hash_is_stable_under_key_order(tmp_path):
    a = only_hash(method=prior(options={"max_depth": 3, "unary": ["sin", "cos"], "grammar": {"x": 1, "y": 2}}))
    b = only_hash(method=prior(options={"grammar": {"y": 2, "x": 1}, "unary": ["sin", "cos"], "max_depth": 3}))
    assert a == b
    one = tmp_path / "one.yaml"
    two = tmp_path / "two.yaml"
    one.write_text("experiment: q\ncatalogs: nguyen\nmethod:\n  name: prior\n  time_limit: 60\n  options: {b: 1, a: 2}\n")
    two.write_text("method:\n  options: {a: 2, b: 1}\n  time_limit: 60\n  name: prior\ncatalogs: nguyen\nexperiment: q\n")
    assert load_config(one).variants()[0].config_hash == load_config(two).variants()[0].config_hash


def test_hash_is_stable_across_calls():
    c = config(sweeps=[{"option": "restarts", "values": [1, 2]}])
    assert [v.config_hash for v in c.variants()] == [v.config_hash for v in expand(c)]


@pytest.mark.parametrize(
    "changes",
    [
        dict(method=prior(options={"max_depth": 4})),
        dict(method=prior(options={"max_depth": 3.0})),  # 3 and 3.0 are different options to a method
        dict(method=prior(options={"max_depth": 3, "restarts": 1})),
        dict(method=prior(options={"max_depth": 3}, time_limit=601)),
        dict(method={"name": "prior", "adapter": {"type": "builtin", "name": "enumeration"}, "options": {"max_depth": 3}}),
    ],
)
def test_hash_changes_with_what_the_fit_runs_with(changes):
    assert only_hash(**changes) != only_hash(method=prior(options={"max_depth": 3}))


@pytest.mark.parametrize(
    "changes",
    [
        dict(seed=5),
        dict(catalogs=["nguyen", "feynman"], limit=3),
        dict(sampling={"n_support": [64], "n_validation": 100, "draws": 5, "noise": [0.1], "ood": True}),
        dict(budgets=[3, 5]),
        dict(experiment="other", workers=2, results="elsewhere"),
        dict(method=prior(options={"max_depth": 3}, config_provenance="author_blessed", budget_knob="candidates")),
        dict(method=prior(options={"max_depth": 3}, env={"OMP_NUM_THREADS": 1})),
        dict(method={"name": "my-prior", "adapter": {"type": "builtin", "name": "prior"}, "options": {"max_depth": 3}}),
    ],
)
def test_hash_ignores_what_the_task_key_or_the_record_already_holds(changes):
    base = only_hash(method=prior(options={"max_depth": 3}))
    merged = {"method": prior(options={"max_depth": 3}), **changes}
    assert only_hash(**merged) == base


def test_hash_ignores_the_interpreter_path(tmp_path):
    python = tmp_path / "python"
    python.symlink_to(shutil.which("python3") or "/usr/bin/env")
    assert only_hash(method=prior(python=str(python))) == only_hash(method=prior())


def test_method_file_enters_the_hash_by_content_not_path(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "m.py").write_text("def fit(X, y, **kw):\n    return {'expression': '1'}\n")

    def file_hash(folder):
        c = config_from_dict({**BASE, "method": {"name": "m", "adapter": {"type": "file", "path": f"{folder}/m.py"}}},
                             base_dir=tmp_path)  # fmt: skip
        return c.variants()[0]

    a, b = file_hash("a"), file_hash("b")
    assert a.config_hash == b.config_hash
    assert a.hash_payload["adapter"]["type"] == "file" and "path" not in a.hash_payload["adapter"]
    (tmp_path / "b" / "m.py").write_text("def fit(X, y, **kw):\n    return {'expression': '2'}\n")
    assert file_hash("b").config_hash != a.config_hash


def test_variant_to_dict_is_plain_data():
    import json

    (v,) = config(method=prior(options={"unary": ["sin"]}, config_provenance="author_blessed")).variants()
    record = json.loads(json.dumps(v.to_dict()))
    assert record["config_hash"] == v.config_hash and record["method"] == "prior"
    assert record["options"] == {"unary": ["sin"]} and record["conditions"] == ["n_support=512;noise=0"]
    assert record["config_provenance"] == "author_blessed" and record["provenance_explicit"] is True
