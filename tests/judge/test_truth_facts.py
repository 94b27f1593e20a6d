"""The shipped truths' facts (judge/truth_facts.py): equal to what the judge computes, used only for
the truth they were written for, and the tool that writes them says when they are stale."""

from __future__ import annotations

import dataclasses
import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from srbf.catalogs.admission import parse_entry
from srbf.catalogs.loader import list_catalogs, load_catalog
from srbf.catalogs.sampling import sample_problem
from srbf.expr import parse
from srbf.judge import JUDGE_VERSION, Judge
from srbf.judge.data import positive_variables
from srbf.judge.formula_facts import FormulaFacts, describe
from srbf.judge.scoring import DEFAULT_CANONICAL_TIME_LIMIT
from srbf.expr.tree import Call, Num, Var
from srbf.judge.truth_facts import (
    DATA_DIR,
    FORMAT,
    SUFFIX,
    decode_facts,
    decode_nodes,
    encode_facts,
    encode_nodes,
    entry_key,
    read_file,
    shipped_truth,
)

ROOT = Path(__file__).resolve().parents[2]
FIELDS = [f.name for f in dataclasses.fields(FormulaFacts) if not f.name.startswith("_") and f.name != "source"]
FIELDS += ["raw_structure", "written_structure", "written_exponents", "leaves"]  # built on first use


def facts_of(formula, names, positive=()):
    return describe(parse(formula, list(names)), len(names), DEFAULT_CANONICAL_TIME_LIMIT, frozenset(positive))


def round_trip(formula, names, positive=()):
    """(tree, facts) as parsed and described, and as encoded, written as JSON and decoded."""
    tree = parse(formula, list(names))
    facts = facts_of(formula, names, positive)
    encoded = encode_facts(facts, tree)
    assert encoded is not None
    return (tree, facts), decode_facts(json.loads(json.dumps(encoded)))


def same_tree(a, b):
    """Equal trees whose numbers have the same text (0.0 and -0.0 are equal as floats, not as trees
    to compile: ``encode_nodes`` tells them apart)."""
    assert a == b and encode_nodes([a]) == encode_nodes([b])


def same_facts(a, b):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x == y and type(x) is type(y), name
        if name == "mdl":
            assert repr(x) == repr(y)
    assert a.tree.labels == b.tree.labels and a.tree.leftmost == b.tree.leftmost


@pytest.mark.parametrize("formula", [
    "x", "2.5*x*sin(3*y) - pi", "exp(-x/2) + e**y", "x**2/y + sqrt(x*y) - 1", "(x - y)**2 + 1e-300*x + 1.5e300",
    "abs(x) + log(x*y) + max(x, y)", "-x", "0*x + y**0.5",
])
def test_encoding_gives_back_the_same_tree_and_facts(formula):
    (tree, facts), (decoded_tree, decoded_facts) = round_trip(formula, ("x", "y"), positive=("x",))
    same_facts(decoded_facts, facts)
    same_tree(decoded_tree, tree)


def test_decoded_trees_come_hashed_as_a_tree_hashes_itself():
    (truth, facts), (decoded_truth, decoded) = round_trip("2.5*x*sin(3*y) - pi + x**2/y", ("x", "y"))
    pairs = [(getattr(decoded, name), getattr(facts, name)) for name in ("canonical", "structure", "exponents",
                                                                          "raw_structure")]
    for tree, original in pairs + [(decoded_truth, truth)]:
        assert tree._hash is not None and tree._hash == hash(original)  # set while decoding, the same value


def test_the_trees_share_one_table_of_distinct_nodes():
    x, y = Var("x"), Var("y")
    square = Call("pow", (x, Num(2.0)))
    trees = [Call("add", (square, Call("mul", (Num(0.0), y)))), Call("add", (square, Call("mul", (Num(-0.0), y)))), square]
    table, roots = encode_nodes(trees)
    assert len(table) == 10  # x, 2.0, x**2, 0.0, y, 0.0*y, the first sum, -0.0, -0.0*y, the second sum
    nodes = decode_nodes(json.loads(json.dumps(table)))
    decoded = [nodes[row] for row in roots]
    assert decoded == trees and decoded[2] is decoded[0].args[0] is decoded[1].args[0]
    assert repr(decoded[1].args[1].args[0].value) == "-0.0"  # equal to 0.0 as a float, yet its own node


def test_the_key_is_the_json_text_of_the_truth():
    for formula, names, positive in [("x + y", ("x", "y"), {"y"}), ('a "q" \u00e9\t\\ b', ("\u00e4", "b"), ()), ("1", (), ())]:
        assert entry_key(formula, names, positive) == json.dumps([formula, list(names), sorted(positive)])


def test_facts_cut_short_or_too_deep_are_not_encoded():
    incomplete = dataclasses.replace(facts_of("x + y", ("x", "y")), complete=False)
    assert encode_facts(incomplete, parse("x + y", ["x", "y"])) is None
    deep = "x"
    for _ in range(300):
        deep = f"sin({deep})"
    assert encode_facts(facts_of(deep, ("x",)), parse(deep, ["x"])) is None


def shipped_sample(step=23):
    """Every ``step``-th entry of every shipped catalog, with its key: about 300 truths."""
    for name in list_catalogs():
        catalog = load_catalog(name)
        for entry in catalog.entries[::step]:
            if entry.id not in catalog.placeholders:
                positive = frozenset(positive_variables(entry.variables))
                yield name, entry, positive, entry_key(entry.formula, entry.variable_names, positive)


@pytest.mark.slow
def test_the_shipped_facts_are_what_the_judge_computes():
    """Fails when the canonical form, masking or lengths change: run python tools/truth_facts.py."""
    checked = 0
    for name, entry, positive, key in shipped_sample():
        shipped = shipped_truth(name, key)
        assert shipped is not None, f"{name}/{entry.id}: no shipped facts"
        computed = describe(parse_entry(entry), len(entry.variable_names), DEFAULT_CANONICAL_TIME_LIMIT, positive)
        same_facts(shipped[1], computed)
        checked += 1
    assert checked > 250


@pytest.mark.slow
def test_the_shipped_trees_are_the_formulas_as_parsed():
    """The sampler compiles the shipped tree in the scoring pass: every shipped one, not a sample."""
    checked = 0
    for name in list_catalogs():
        catalog = load_catalog(name)
        for entry in catalog.entries:
            if entry.id not in catalog.placeholders:
                positive = positive_variables(entry.variables)
                shipped = shipped_truth(name, entry_key(entry.formula, entry.variable_names, positive))
                assert shipped is not None, f"{name}/{entry.id}: no shipped tree"
                same_tree(shipped[0], parse_entry(entry))
                checked += 1
    assert checked > 6000


def test_every_shipped_catalog_has_a_file_of_this_judge_version():
    for name in list_catalogs():
        header, entries = read_file(DATA_DIR / f"{name}{SUFFIX}")
        assert (header["judge_version"], header["format"]) == (JUDGE_VERSION, FORMAT), name
        assert header["catalog_version"] == load_catalog(name).version, name
        assert entries


def test_facts_are_used_only_for_the_truth_they_were_written_for():
    name, entry, positive, key = next(shipped_sample())
    assert shipped_truth(name, key) is not None
    assert shipped_truth(name, entry_key(entry.formula + " + 1", entry.variable_names, positive)) is None
    assert shipped_truth(name, entry_key(entry.formula, entry.variable_names, positive | {"zz"})) is None
    assert shipped_truth(name, entry_key(entry.formula, tuple(reversed(entry.variable_names)) + ("zz",), positive)) is None
    assert shipped_truth("no-such-catalog", key) is None
    assert shipped_truth("../" + name, key) is None


def test_a_judge_given_the_facts_scores_as_one_that_describes_the_truth():
    catalog = load_catalog("feynman")
    entry = catalog.entries[5]
    names = list(entry.variable_names)
    positive = positive_variables(entry.variables)
    truth = parse_entry(entry)
    data = sample_problem(entry, catalog="feynman", catalog_version=catalog.version, n_support=64, n_validation=64)
    shipped_tree, facts = shipped_truth("feynman", entry_key(entry.formula, names, positive))
    predictions = [entry.formula, f"1.0001*({entry.formula})", f"{names[0]} + 2", "nonsense("]
    given = Judge(shipped_tree, data, variables=names, positive=positive, truth_facts=facts).score_many(predictions)
    fresh = Judge(truth, data, variables=names, positive=positive).score_many(predictions)
    assert json.dumps(given) == json.dumps(fresh)
    assert given[0]["srr_all"] == 1


def _tool():
    spec = importlib.util.spec_from_file_location("truth_facts_tool", ROOT / "tools" / "truth_facts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tool_says_when_a_file_is_stale(tmp_path, capsys):
    tool = _tool()
    assert tool.main(["--check", "--catalog", "vladislavleva"]) == 0
    assert tool.main(["--catalog", "vladislavleva", "--data", str(tmp_path)]) == 0
    written = tmp_path / f"vladislavleva{SUFFIX}"
    assert written.read_bytes() == (DATA_DIR / written.name).read_bytes()
    text = gzip.decompress(written.read_bytes()).decode().replace('"nesting":0', '"nesting":1', 1)
    written.write_bytes(gzip.compress(text.encode(), mtime=0))
    assert tool.main(["--check", "--catalog", "vladislavleva", "--data", str(tmp_path)]) == 1
    assert "stale or missing truth facts: vladislavleva" in capsys.readouterr().err


def test_the_tool_names_an_unknown_catalog_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        _tool().main(["--catalog", "nope", "--data", str(tmp_path)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--catalog nope: not a shipped catalog" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())
