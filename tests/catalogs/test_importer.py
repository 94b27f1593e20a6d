"""Importing reference-format catalogs and writing srbf's format (no access to ../shared needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from srbf.catalogs.files import dump_catalog, read_catalog_file, write_catalog
from srbf.catalogs.importer import convert_reference_catalog, import_reference_catalog, safe_variable_name
from srbf.catalogs.loader import CatalogError, catalog_from_dict, load_catalog
from srbf.catalogs.sampling import draw_inputs
from srbf.expr import compile_expr, parse

# A small catalog in the reference format, written by hand with the quirks real files have:
# YAML-1.1 exponent strings as bounds, a stray non-numeric range element, Julia-style ^ powers,
# a keyword as a variable name, formula forms over v1..vn in `accept` and `constraints`.
REFERENCE = """\
metadata:
  name: toy
  version: 2
  description: A toy set in the reference format.
  sources:
  - Toy paper (2024)
  sampling_defaults: {n_points: 50, method: random, noise: 0.0}
  conventions:
    sampling: vars use sample_range/sample_type.
expressions:
  T-1:
    raw: F = m * a
    prepared: v1 * v2
    n_variables: 2
    sources:
    - Toy paper (2024)
    vars:
      v1: {name: m, sample_range: [0.1, '1.0e1'], sample_type: [log, pos], units: [0, 0, 1]}
      v2: {name: a, sample_range: ['-1.0e1', 10.0], sample_type: [uni, pos]}
      v0: {name: F, units: [1, -2, 1]}
    accept:
    - v2 * v1
    constraints:
    - v1 != 0
  T-2:
    raw: lambda ^ 2 / x
    prepared: v1 ^ 2 / v2 + neg(v3)
    sources:
    - Another paper
    vars:
      v1: {name: lambda, sample_range: [1.0, 2.0, 'uses_positive=False'], sample_type: [log, pos_neg]}
      v2: {name: x, sample_range: [1, 5], sample_type: [int, pos]}
      v3: {name: sin, sample_range: [1, 2], sample_type: [uni, neg]}
      v0: {name: y}
    meta: {finite_fraction: 1.0, erbench_task_id: T-2, base_eq_id: X.1}
"""


@pytest.fixture()
def reference_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.v2.yaml"
    path.write_text(REFERENCE, encoding="utf-8")
    return path


def test_conversion_maps_every_field(reference_file):
    doc = import_reference_catalog(reference_file)
    assert doc["srbf_catalog"] == 1 and doc["name"] == "toy" and doc["version"] == 2
    assert doc["sources"] == ["Toy paper (2024)"]
    assert doc["conventions"] == {"sampling": "vars use sample_range/sample_type."}
    assert doc["meta"]["sampling_defaults"]["n_points"] == 50
    assert doc["meta"]["imported_from"] == {"format": "symbolic-data-catalogs", "file": "toy.v2.yaml"}
    first, second = doc["problems"]
    assert [p["id"] for p in doc["problems"]] == ["T-1", "T-2"]  # order and ids kept

    assert first["formula"] == "m * a" and first["target"] == "F"
    assert first["variables"] == [
        {"name": "m", "range": [0.1, 10.0], "distribution": "log_uniform"},
        {"name": "a", "range": [-10.0, 10.0]},  # 'pos' keeps the range as given, even when negative
    ]
    assert "sources" not in first  # same as the set's: left to the default
    assert first["meta"]["accept"] == ["a * m"]
    assert first["meta"]["constraints"] == ["m != 0"]
    assert first["meta"]["units"] == {"m": [0, 0, 1], "F": [1, -2, 1]}
    assert "raw" not in first["meta"]  # "F = m * a" reads as the formula itself: not repeated

    assert "target" not in second  # the default y
    assert [v["name"] for v in second["variables"]] == ["lambda_", "x", "sin_"]
    assert second["meta"]["renamed"] == {"lambda_": "lambda", "sin_": "sin"}
    assert second["formula"] == "lambda_**2 / x + -sin_"
    assert second["variables"][0] == {"name": "lambda_", "range": [1.0, 2.0], "distribution": "log_uniform", "sign": "both"}
    assert second["variables"][1] == {"name": "x", "range": [1.0, 5.0], "distribution": "integer"}
    assert second["variables"][2] == {"name": "sin_", "range": [1.0, 2.0], "sign": "negative"}
    assert second["sources"] == ["Another paper"]
    assert second["meta"]["raw"] == "lambda ^ 2 / x"  # kept: it does not read as the formula
    assert "erbench_task_id" not in second["meta"]  # equal to the id
    assert second["meta"]["base_eq_id"] == "X.1" and second["meta"]["finite_fraction"] == 1.0
    assert second["meta"]["import_notes"] == [
        "vars.v1.sample_range: dropped non-numeric extra element(s) ['uses_positive=False']"
    ]


def test_converted_formulas_compute_the_reference_formulas(reference_file):
    reference = read_catalog_file(reference_file)["expressions"]
    catalog = catalog_from_dict(import_reference_catalog(reference_file))
    rng = np.random.default_rng(0)
    for entry in catalog.entries:
        X = draw_inputs(entry.variables, 64, rng)
        columns = [f"v{i + 1}" for i in range(len(entry.variables))]
        expected = compile_expr(parse(reference[entry.id]["prepared"], columns), columns)(X)
        got = compile_expr(parse(entry.formula, entry.variable_names), entry.variable_names)(X)
        np.testing.assert_array_equal(got, expected)


def test_written_file_round_trips(reference_file, tmp_path):
    doc = import_reference_catalog(reference_file)
    out = write_catalog(doc, tmp_path / "out" / "toy.yaml", header="Imported for a test\nsecond line")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Imported for a test\n# second line\nsrbf_catalog: 1\n")
    assert "- {name: m, range: [0.1, 10.0], distribution: log_uniform}" in text  # one line per variable
    assert read_catalog_file(out) == doc
    loaded = load_catalog(out, numeric=True)
    assert loaded.ids == ("T-1", "T-2") and not loaded.placeholders
    assert loaded.entry("T-1").sources == ("Toy paper (2024)",)
    assert loaded.content_hash == catalog_from_dict(doc).content_hash
    assert dump_catalog(doc) == dump_catalog(import_reference_catalog(reference_file))  # deterministic


def test_load_catalog_reads_the_reference_format_directly(reference_file, tmp_path):
    direct = load_catalog(reference_file)
    converted = load_catalog(write_catalog(import_reference_catalog(reference_file), tmp_path / "c.yaml"))
    assert direct.content_hash == converted.content_hash
    assert direct.entry("T-2").variable_names == ("lambda_", "x", "sin_")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("prepared: v1 * v2", "prepared: v1 * (v2", "toy.yaml: problem 'T-1': prepared: 'v1 * (v2' does not parse"),
        ("prepared: v1 * v2", "prepared: v1 * v3", "problem 'T-1': prepared: 'v1 * v3' does not parse: unknown variable 'v3'"),
        ("sample_type: [uni, pos]}", "sample_type: [normal, pos]}", "problem 'T-1': vars.v2.sample_type[0]: unknown base 'normal'"),
        ("sample_type: [uni, neg]}", "sample_type: [uni, minus]}", "problem 'T-2': vars.v3.sample_type[1]: unknown sign 'minus'"),
        ("sample_range: [1, 5]", "sample_range: [1]", "problem 'T-2': vars.v2.sample_range: expected two numbers [low, high], got [1]"),
        ("      v2: {name: a,", "      v3: {name: a,", "problem 'T-1': vars: inputs must be v1..v2 without gaps"),
        ("expressions:", "problems:", "toy.yaml: not a reference-format catalog"),
    ],
)
def test_malformed_reference_files_name_the_problem_and_field(tmp_path, old, new, expected):
    assert old in REFERENCE
    path = tmp_path / "toy.yaml"
    path.write_text(REFERENCE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        import_reference_catalog(path)
    assert expected in str(caught.value).replace(str(tmp_path) + "/", "")


def test_convert_is_pure_and_needs_no_file():
    doc = {
        "metadata": {"name": "mini", "version": 1, "sources": ["S"]},
        "expressions": {"a": {"prepared": "exp(v1)", "vars": {"v1": {"name": "t", "sample_range": [0, 1]}}}},
    }
    out = convert_reference_catalog(doc, source="mini.yaml")
    assert out["problems"] == [{"id": "a", "formula": "exp(t)", "variables": [{"name": "t", "range": [0.0, 1.0]}]}]
    assert doc["expressions"]["a"]["prepared"] == "exp(v1)"  # input untouched


@pytest.mark.parametrize(
    "name, taken, expected",
    [
        ("theta", set(), "theta"),
        ("lambda", set(), "lambda_"),
        ("pi", set(), "pi_"),
        ("E", set(), "E_"),
        ("exp", set(), "exp_"),
        ("Sin", set(), "Sin_"),
        ("x", {"x", "x_"}, "x__"),
        ("E_n'", set(), "E_n_"),
        ("1st", set(), "x1st"),
        ("", set(), "x"),
    ],
)
def test_safe_variable_name(name, taken, expected):
    assert safe_variable_name(name, taken) == expected
