"""The shipped catalogs, the loader's validation and its messages, admission and content hashes."""

from __future__ import annotations

import gc
import json
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml

from srbf.catalogs.admission import (
    OK,
    PLACEHOLDER,
    REJECTED,
    admission_report,
    admit_entry,
    validate_catalog,
)
from srbf.catalogs import loader
from srbf.catalogs.loader import (
    DATA_DIR,
    HASHES_FILE,
    CatalogError,
    catalog_from_dict,
    catalog_info,
    clear_cache,
    list_catalogs,
    load_catalog,
    recorded_hashes_text,
)
from srbf.catalogs.files import read_catalog_file, write_catalog
from srbf.expr import compile_expr, parse, to_infix, variables_of

SHIPPED = {
    "fastsrb": 120, "feynman": 100, "feynman-bonus": 20, "srsd-dummy": 120,
    "erbench-densities": 33, "erbench-phybench": 90, "erbench-syneq": 5301,
    "soose-fc": 200, "soose-nc": 200, "soose-wc": 200, "physo-astro": 2, "physo-class": 8,
    "nguyen": 12, "keijzer": 15, "korns": 12, "koza": 2, "livermore": 25, "livermore2": 150,
    "vladislavleva": 8, "jin": 6, "neat": 8, "pagie": 1, "poly": 6, "nonic": 1, "sine": 1,
    "meier": 2, "r-rationals": 6, "constant": 10, "grammarvae": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def shipped():
    return {name: load_catalog(name) for name in list_catalogs()}


# --- the shipped sets --------------------------------------------------------------------------


def test_exactly_the_29_sets_with_6660_formulas(shipped):
    assert list_catalogs() == sorted(SHIPPED)
    assert {name: len(c) for name, c in shipped.items()} == SHIPPED
    assert sum(len(c) for c in shipped.values()) == 6660
    assert len(shipped["erbench-syneq"]) == 5301


def test_shipped_versions_and_content_hashes_are_pinned(shipped):
    # Every stored draw's key holds its catalog's version and the points' hash depends on the
    # content: a change here must come with a version bump. Update deliberately.
    found = {name: (c.version, c.content_hash[:16]) for name, c in shipped.items()}
    assert found == SHIPPED_HASHES


@pytest.mark.slow
def test_every_shipped_formula_parses_round_trips_and_uses_declared_names(shipped):
    for catalog in shipped.values():
        ids = [e.id for e in catalog.entries]
        assert len(ids) == len(set(ids)), catalog.name
        for entry in catalog.entries:
            names = entry.variable_names
            tree = parse(entry.formula, names)
            assert parse(to_infix(tree), names) == tree, (catalog.name, entry.id)
            assert parse(to_infix(tree)) == tree, (catalog.name, entry.id)  # no variable list needed
            assert variables_of(tree) <= set(names), (catalog.name, entry.id)
            assert entry.target not in names


@pytest.mark.slow
def test_every_shipped_formula_evaluates(shipped):
    for catalog in shipped.values():
        report = admission_report(catalog)
        assert not report.rejected, report.summary()
        assert len(report.ok) + len(report.placeholders) == len(catalog)
        # the build tool recorded every placeholder in the file, so plain loads know them
        assert {r.problem_id for r in report.placeholders} == set(catalog.placeholders), catalog.name


def test_shipped_entries_carry_sources_and_sets_carry_provenance(shipped):
    for catalog in shipped.values():
        assert catalog.sources and catalog.description
        assert catalog.meta["imported_from"]["format"] == "symbolic-data-catalogs"
        assert all(entry.sources for entry in catalog.entries), catalog.name
        assert read_catalog_file(catalog.path)["comment"][0].startswith(f"srbf catalog {catalog.name!r}")


def test_shipped_spot_checks(shipped):
    entry = shipped["feynman"].entry("I.6.2a")
    assert entry.formula.startswith("exp(") and entry.variable_names == ("theta",) and entry.target == "f"
    assert (entry.variables[0].low, entry.variables[0].high) == (1.0, 3.0)
    fast = shipped["fastsrb"].entry("II.38.3")
    assert fast.variable_names == ("Y", "A", "x", "d") and fast.target == "F"
    assert [v.distribution for v in fast.variables] == ["log_uniform"] * 4
    assert [v.sign for v in fast.variables] == ["range", "range", "both", "range"]
    assert fast.meta["units"]["F"] == (1, -2, 1, 0, 0)
    # the stray non-numeric range element of fastsrb v1 (III.21.20) is gone in the v2 revision
    repaired = shipped["fastsrb"].entry("III.21.20")
    assert repaired.variables[0].low == pytest.approx(1e-29)
    # a variable called like a Python keyword is renamed, and the rename recorded
    renamed = [e for c in shipped.values() for e in c.entries if "renamed" in e.meta]
    assert renamed and all(new.endswith("_") for e in renamed for new in e.meta["renamed"])
    # srsd-dummy declares inputs its formula does not use, on purpose
    dummy = shipped["srsd-dummy"].entry("II.38.3")
    assert len(dummy.variables) > len(variables_of(parse(dummy.formula, dummy.variable_names)))
    integers = [v for c in shipped.values() for e in c.entries for v in e.variables if v.distribution == "integer"]
    assert integers and all(float(v.low).is_integer() for v in integers)


def test_catalog_entry_lookup_and_info(shipped):
    nguyen = shipped["nguyen"]
    assert nguyen.entry("Nguyen-1").id == "Nguyen-1"
    assert nguyen.ids[0] == "Nguyen-1"
    with pytest.raises(KeyError, match="Nguyen-1"):
        nguyen.entry("Nguyen-01")
    info = catalog_info(nguyen)
    assert info["problems"] == 12 and info["name"] == "nguyen" and len(info["content_hash"]) == 64


def test_unknown_name_lists_valid_ones_and_suggests():
    with pytest.raises(CatalogError) as caught:
        load_catalog("feynmann")
    message = str(caught.value)
    assert "unknown catalog 'feynmann'" in message and "did you mean 'feynman'" in message
    assert "erbench-syneq" in message and "nguyen" in message


def test_shipped_catalogs_are_cached():
    first = load_catalog("nguyen")
    assert load_catalog("nguyen") is first
    clear_cache()
    again = load_catalog("nguyen")
    assert again is not first and again == first and again.content_hash == first.content_hash


def test_validate_catalog_reports_every_entry():
    report = validate_catalog("nguyen")
    assert len(report.results) == 12 and len(report.ok) == 12
    assert "nguyen: 12 entries: 12 ok" in report.summary()


# --- user catalogs -----------------------------------------------------------------------------

GOOD = """\
srbf_catalog: 1
name: mine
version: 3
description: two test problems
sources: [Made up for the tests]
problems:
- id: p1
  formula: a * sin(b) + 2
  variables:
  - {name: a, range: [1, 2]}
  - {name: b, range: [0.1, 10], distribution: log_uniform, sign: both}
- id: p2
  formula: sqrt(k) / pi
  target: z
  variables:
  - {name: k, range: [1, 5], distribution: integer}
  - {name: unused, range: [-1, 1]}
  sources: [Another source]
  meta: {difficulty: easy}
"""


def write(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_user_catalog_by_path(tmp_path):
    path = write(tmp_path, GOOD)
    for given in (path, str(path)):
        catalog = load_catalog(given, numeric=True)
        assert catalog.name == "mine" and catalog.version == 3 and len(catalog) == 2
        assert catalog.path == str(path)
        p1, p2 = catalog.entries
        assert p1.target == "y" and p1.sources == ("Made up for the tests",)  # defaults
        assert (p1.variables[0].distribution, p1.variables[0].sign) == ("uniform", "range")
        assert (p1.variables[1].distribution, p1.variables[1].sign) == ("log_uniform", "both")
        assert p2.target == "z" and p2.sources == ("Another source",) and p2.meta["difficulty"] == "easy"
        assert p2.variables[0].low == 1.0 and isinstance(p2.variables[0].low, float)
        assert not catalog.placeholders
    values = compile_expr(parse(p2.formula, p2.variable_names), p2.variable_names)(np.array([[4.0, 0.3]]))
    assert values[0] == pytest.approx(2 / np.pi)


def test_default_target_steps_aside_for_an_input_called_y(tmp_path):
    path = write(tmp_path, GOOD.replace("{name: b, range: [0.1, 10]", "{name: y, range: [0.1, 10]").replace("sin(b)", "sin(y)"))
    assert load_catalog(path).entry("p1").target == "y_"


def test_numbers_yaml_reads_as_strings_are_accepted(tmp_path):
    path = write(tmp_path, GOOD.replace("range: [1, 2]", "range: [1e-3, 1e5]"))
    assert load_catalog(path).entries[0].variables[0].high == 1e5


def test_content_hash_is_stable_and_tracks_every_change(tmp_path):
    base = load_catalog(write(tmp_path, GOOD)).content_hash
    assert base == load_catalog(write(tmp_path, GOOD, "copy.yaml")).content_hash  # not path-dependent
    assert base == load_catalog(write(tmp_path, "# a comment\n" + GOOD, "commented.yaml")).content_hash
    changes = [
        GOOD.replace("range: [1, 2]", "range: [1, 3]"),
        GOOD.replace("a * sin(b) + 2", "a * sin(b) + 3"),
        GOOD.replace("{difficulty: easy}", "{difficulty: hard}"),
        GOOD.replace("sign: both", "sign: negative"),
        GOOD.replace("version: 3", "version: 4"),
        GOOD.replace("target: z", "target: w"),
    ]
    hashes = {load_catalog(write(tmp_path, text, f"c{i}.yaml")).content_hash for i, text in enumerate(changes)}
    assert len(hashes) == len(changes) and base not in hashes


def test_shipped_content_hash_is_pinned():
    # Changes only when the shipped nguyen data (or the hashing) changes; update deliberately.
    catalog = load_catalog("nguyen")
    assert catalog.content_hash == load_catalog(Path(catalog.path)).content_hash
    assert catalog.content_hash == NGUYEN_HASH


@pytest.mark.slow
def test_recorded_hashes_are_those_of_the_shipped_files():
    # tools/build_catalogs.py writes the record; each file is read, checked and hashed in full here
    assert (DATA_DIR / HASHES_FILE).read_text(encoding="utf-8") == recorded_hashes_text()


@pytest.fixture
def edited_data(tmp_path, monkeypatch):
    """A copy of the shipped files (and their recorded hashes) that the loader reads by name."""
    copy = tmp_path / "data"
    shutil.copytree(DATA_DIR, copy)
    monkeypatch.setattr(loader, "DATA_DIR", copy)
    clear_cache()
    yield copy
    clear_cache()


def test_an_edited_shipped_file_is_checked_and_hashed_in_full(edited_data):
    assert load_catalog("nguyen").content_hash == NGUYEN_HASH  # the copy: the recorded hash holds
    nguyen = edited_data / "nguyen.json"
    nguyen.write_text(nguyen.read_text(encoding="utf-8").replace('"range": [-1.0, 1.0]', '"range": [-1.0, 2.0]', 1), encoding="utf-8")
    clear_cache()
    edited = load_catalog("nguyen")
    assert edited.content_hash != NGUYEN_HASH and edited.entries[0].variables[0].high == 2.0
    assert edited.content_hash == catalog_from_dict(read_catalog_file(nguyen)).content_hash
    assert load_catalog("koza").content_hash.startswith(SHIPPED_HASHES["koza"][1])  # the others still match
    nguyen.write_text(nguyen.read_text(encoding="utf-8").replace('"id": "Nguyen-1",', '"id": "Nguyen-1", "id": "Nguyen-1",', 1), encoding="utf-8")
    clear_cache()
    with pytest.raises(CatalogError, match=r"^nguyen\.json: not valid JSON: duplicate key 'id'$"):
        load_catalog("nguyen")
    assert gc.isenabled()  # paused while reading, on again after a failure too


NGUYEN_HASH = "12c07d1cb420de9d613bbf0c6e4a674084363af3ff06a2459f7d94c1361cb160"
SHIPPED_HASHES = {
    "constant": (1, "0f8dbd390d485082"), "erbench-densities": (1, "572db187b2b19711"),
    "erbench-phybench": (1, "258e8114eb19fd29"), "erbench-syneq": (1, "6c8f26ed62c73353"),
    "fastsrb": (2, "47814b32405d2b4d"), "feynman": (1, "33f4d3680fa4c585"),
    "feynman-bonus": (1, "f0257ff481d8acc0"), "grammarvae": (1, "502894368fd59911"),
    "jin": (1, "cf979c86fde85dc4"), "keijzer": (1, "4f1ff5c5aa973f73"), "korns": (1, "b30e5719c513435f"),
    "koza": (1, "bfb502ac97561c01"), "livermore": (1, "05b84b3f3a44c0eb"), "livermore2": (1, "415e413a3f16c0e4"),
    "meier": (1, "8ea07bedaf09f633"), "neat": (1, "1e3261c8897d38ea"), "nguyen": (1, "12c07d1cb420de9d"),
    "nonic": (1, "903a9dd880524150"), "pagie": (1, "fbe2be3a3b7a93af"), "physo-astro": (1, "36ed7e4d0ba9c82e"),
    "physo-class": (1, "667a38ed8215df8a"), "poly": (1, "f08d73d2719e0aea"), "r-rationals": (1, "24ddf2533da1e1a7"),
    "sine": (1, "c0cbf25865501701"), "soose-fc": (1, "9039a7973ae3b66a"), "soose-nc": (1, "18deaa05ba9bb17d"),
    "soose-wc": (1, "8ba6042482dd9d52"), "srsd-dummy": (1, "c8c137e3cac94082"),
    "vladislavleva": (1, "8d6f20f54431e4a3"),
}  # fmt: skip


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("range: [1, 2]", "range: [3.0, 1.0]", "mine.yaml: problem 'p1': variables[0].range: low 3.0 > high 1.0"),
        ("distribution: log_uniform", "distribution: lognormal", "mine.yaml: problem 'p1': variables[1].distribution: unknown distribution 'lognormal'"),
        ("sign: both", "sign: positive", "problem 'p1': variables[1].sign: unknown sign 'positive'"),
        ("range: [1, 5]", "range: [1, five]", "problem 'p2': variables[0].range: high 'five' is not a finite number"),
        ("range: [0.1, 10]", "range: [-1, 10]", "problem 'p1': variables[1].range: log_uniform needs 0 < low"),
        ("{name: a, range: [1, 2]}", "{name: a}", "problem 'p1': variables[0].range: expected [low, high], got None"),
        ("{name: a, range: [1, 2]}", "{name: sin, range: [1, 2]}", "problem 'p1': variables[0].name: 'sin' is reserved"),
        ("{name: a, range: [1, 2]}", "{name: 2a, range: [1, 2]}", "problem 'p1': variables[0].name: '2a' is not a valid identifier"),
        ("{name: a, range: [1, 2]}", "{name: b, range: [1, 2]}", "problem 'p1': variables[1].name: 'b' is declared twice"),
        ("{name: a, range: [1, 2]}", "{name: a, range: [1, 2], distrib: uniform}", "problem 'p1': variables[0].distrib: unknown field"),
        ("  formula: a * sin(b) + 2\n", "", "mine.yaml: problem 'p1': formula: expected a non-empty formula string, got None"),
        ("- id: p2", "- id: p1", "mine.yaml: problem 'p1': id: duplicate id (also problems[0])"),
        ("  target: z", "  target: k", "problem 'p2': target: 'k' is also the name of an input variable"),
        ("  target: z", "  targte: z", "problem 'p2': targte: unknown field"),
        ("version: 3", "version: three", "mine.yaml: version: expected a positive integer, got 'three'"),
        ("name: mine\n", "", "mine.yaml: name: missing required field"),
        ("srbf_catalog: 1", "srbf_catalog: 9", "mine.yaml: srbf_catalog: unsupported format version 9"),
    ],
)
def test_malformed_user_catalogs_name_file_problem_field_and_value(tmp_path, old, new, expected):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(CatalogError) as caught:
        load_catalog(path, admit=False)
    assert expected in str(caught.value).replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("a * sin(b) + 2", "a * sin(b + 2", "problem 'p1': formula does not parse: unbalanced bracket"),
        ("a * sin(b) + 2", "a * sinn(b) + 2", "problem 'p1': formula does not parse: unknown function 'sinn'"),
        ("a * sin(b) + 2", "a * sin(c) + 2", "problem 'p1': formula does not parse: unknown variable 'c'"),
        ("a * sin(b) + 2", "a * sin(x1) + 2", "problem 'p1': formula uses undeclared variable(s) 'x1'"),
    ],
)
def test_rejected_entries_name_the_problem(tmp_path, old, new, expected):
    path = write(tmp_path, GOOD.replace(old, new, 1))
    load_catalog(path, admit=False)  # the structure is fine
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert str(caught.value).startswith(f"{path}: 1 entry rejected")
    assert expected in str(caught.value)
    report = validate_catalog(str(path))
    assert [r.status for r in report.results] == [REJECTED, OK]


def test_bad_yaml_and_missing_file(tmp_path):
    path = write(tmp_path, GOOD.replace("- {name: a, range: [1, 2]}", "- {name: a, range: [1, 2]"))
    with pytest.raises(CatalogError, match=r"mine\.yaml: not valid YAML \(line \d+, column \d+\)"):
        load_catalog(path)
    duplicated = write(tmp_path, GOOD.replace("  formula: sqrt(k) / pi\n", "  formula: sqrt(k) / pi\n  formula: k\n"), "dup.yaml")
    with pytest.raises(CatalogError, match=r"dup\.yaml: not valid YAML \(line 14, column 3\): duplicate key 'formula'"):
        load_catalog(duplicated)
    with pytest.raises(CatalogError, match="no such catalog file"):
        load_catalog(tmp_path / "absent.yaml")
    with pytest.raises(CatalogError, match="expected a mapping at the top level"):
        load_catalog(write(tmp_path, "- just\n- a list\n", "list.yaml"))


def test_placeholders_are_kept_and_reported(tmp_path):
    text = GOOD.replace("a * sin(b) + 2", "sqrt(a - 3)")  # a in [1, 2]: never finite
    path = write(tmp_path, text)
    catalog = load_catalog(path, numeric=True)
    assert len(catalog) == 2 and list(catalog.placeholders) == ["p1"]
    assert "finite on 0.0% of 256 points" in catalog.placeholders["p1"]
    assert admit_entry(catalog.entry("p1")).status == PLACEHOLDER
    assert load_catalog(path).placeholders == {}  # without the numeric check nothing is known
    recorded = write(tmp_path, text.replace("meta: {difficulty: easy}", "meta: {placeholder: checked by hand}"), "rec.yaml")
    assert dict(load_catalog(recorded).placeholders) == {"p2": "checked by hand"}


def test_yaml_files_read_as_the_safe_loader_reads_them(tmp_path):
    text = textwrap.dedent("""\
        a: [1, 2.5, .inf, 0x1F, 010, 1_000, 1e5, 1.0e5, ~, null, true, Yes, off, '1', 2001-12-14, "x: y"]
        b: &anchor {p: 1, q: [a, b]}
        c: *anchor
        d:
          <<: *anchor
          p: 2
        e: !!str 12
        f: |
          two
          lines
        """)
    path = write(tmp_path, text, "tricky.yaml")
    assert read_catalog_file(path) == yaml.load(text, Loader=yaml.SafeLoader)  # a merged key may be overridden


def test_json_catalog_reads_like_yaml_and_refuses_what_yaml_refuses(tmp_path):
    document = read_catalog_file(write(tmp_path, GOOD))
    as_json = tmp_path / "mine.json"
    as_json.write_text(json.dumps(document), encoding="utf-8")
    assert load_catalog(as_json).content_hash == load_catalog(write(tmp_path, GOOD)).content_hash
    text = as_json.read_text(encoding="utf-8")
    duplicated = tmp_path / "dup.json"
    duplicated.write_text(text.replace('"formula": "sqrt(k) / pi"', '"formula": "sqrt(k) / pi", "formula": "k"'))
    with pytest.raises(CatalogError, match=r"/dup\.json: not valid JSON: duplicate key 'formula'$"):
        load_catalog(duplicated)
    broken = tmp_path / "broken.json"
    broken.write_text(text[:-1] + ",\n}")
    with pytest.raises(CatalogError, match=r"/broken\.json: not valid JSON \(line 2, column 1\): "):
        load_catalog(broken)


def test_written_json_keeps_the_comment_and_the_content(tmp_path):
    document = read_catalog_file(write(tmp_path, GOOD))
    out = write_catalog(document, tmp_path / "out.json", header="first line\nsecond line")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[1] == '"comment": ["first line", "second line"],' and lines[-2] == "]"
    assert sum(line.startswith('{"id": ') for line in lines) == 2  # one problem per line
    assert read_catalog_file(out) == {"comment": ["first line", "second line"], **document}
    assert load_catalog(out).content_hash == load_catalog(write(tmp_path, GOOD)).content_hash
    with pytest.raises(CatalogError, match=r"/bad\.yaml: comment: expected a list of strings, got 3$"):
        load_catalog(write(tmp_path, GOOD.replace("name: mine", "comment: 3\nname: mine"), "bad.yaml"))

def test_loading_a_shipped_catalog_by_name_parses_no_formula_again():
    # its build admitted it and test_every_shipped_formula_evaluates admits it again here
    from srbf.catalogs.admission import parse_formula

    clear_cache()
    parse_formula.cache_clear()
    catalog = load_catalog("feynman")
    assert parse_formula.cache_info().currsize == 0
    assert catalog.placeholders == load_catalog(str(catalog.path)).placeholders  # a file is admitted in full
    assert parse_formula.cache_info().currsize == len(catalog)
