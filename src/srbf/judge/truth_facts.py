"""The shipped catalogs' truths, described once: their trees and ``FormulaFacts`` as package data.

Everything the judge derives from a truth (canonical form, masked skeletons, tokens, lengths) is
the same in every scoring pass of a catalog version, and describing a truth costs as much as
describing a prediction; with one prediction per problem it was a fifth of a pass. So the facts of
every shipped entry are written once by ``tools/truth_facts.py`` into ``data/truth_facts/<catalog>.json.gz``
and read back here; the scoring pass hands them to its ``Judge``. The truth's tree as parsed
(``admission.parse_formula``) comes with them: it adds a few nodes to the table below, and reading
it back costs a tenth of parsing the formula, which the pass did once per problem to draw its points.

A file's facts are used only when its judge version and format are this judge's, and an entry's
only when its formula text, variable names and ``positive`` names are the ones asked about, so a
changed catalog, a user's catalog file of the same name or an edited entry falls back to
describing the truth (``None`` here). tests/judge/test_truth_facts.py fails when the shipped facts
no longer equal what ``formula_facts.describe`` computes (a judge change: run the tool again).

A file is gzipped text (``zcat`` shows it): a JSON header line, then one line per truth, its key
and its facts as JSON separated by a tab. The six trees of a truth share most of their subtrees
(the masked forms differ from the canonical form only at numbers), so they are written as one table
of their distinct nodes, children before parents, and the index of each tree's root: a number is a
JSON number, a variable its name as a string, a named constant (also the mask ``<constant>``) a
one-element list ``[name]``, an operator a list ``[op, index, ...]`` of at least two elements whose
indices are its arguments' rows. Decoding is one loop over the table, each distinct node built once
(a third of the nodes the six trees hold). The parsed truth is one more root in the same table
(``truth``): it shares all but its numbers' paths with the canonical form.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
from json.encoder import encode_basestring_ascii as _quoted
from pathlib import Path
from typing import Any, Iterable

from srbf.expr.canonical_nodes import from_expr, to_expr
from srbf.expr.tree import Call, Const, Expr, Num, Var, hashed_call
from srbf.judge.formula_facts import FormulaFacts
from srbf.judge.metric_keys import JUDGE_VERSION

__all__ = ["DATA_DIR", "FORMAT", "SUFFIX", "decode_facts", "decode_nodes", "encode_facts", "encode_nodes", "entry_key",
           "read_file", "shipped_truth", "write_file"]

DATA_DIR = Path(__file__).resolve().parent / "data" / "truth_facts"
SUFFIX = ".json.gz"  # gzipped JSON (zcat shows it): a tenth of the size
FORMAT = 4  # the layout of a file below; bump with any change to it (4: the written forms)
MAX_DEPTH = 200  # deeper trees are not shipped (encoding recurses): described when scored

_TREES = ("canonical", "structure", "exponents", "raw_structure", "written_structure", "written_exponents")

_files: dict[str, dict[str, Any]] = {}  # catalog name -> its entries (empty: no usable file)
_lock = threading.Lock()


def entry_key(formula: str, variables: Iterable[str], positive: Iterable[str]) -> str:
    """What a truth's facts depend on: its text, the variables it is read over (their count sets
    the description length) and the ones known positive (canonical rules). The text of
    ``json.dumps([formula, list(variables), sorted(positive)])``, quoted by json's own C
    function without the encoder's set-up (which cost more than the quoting, once per problem)."""
    names, known = ", ".join(map(_quoted, variables)), ", ".join(map(_quoted, sorted(positive)))
    return f"[{_quoted(formula)}, [{names}], [{known}]]"


def encode_nodes(trees: Iterable[Expr]) -> tuple[list[Any], list[int]]:
    """The table of the distinct nodes of ``trees`` (children first) and the row of each root.
    Numbers are told apart by their text, so -0.0 and 0.0 (equal as floats) stay two nodes."""
    table: list[Any] = []
    rows: dict[Any, int] = {}

    def add(expr: Expr) -> int:
        kind = type(expr)
        if kind is Call:
            item: Any = [expr.op, *(add(arg) for arg in expr.args)]
            key: Any = tuple(item)
        elif kind is Num:
            item, key = expr.value, (Num, repr(expr.value))
        elif kind is Var:
            item, key = expr.name, (Var, expr.name)
        else:
            item, key = [expr.name], (Const, expr.name)
        row = rows.get(key)
        if row is None:
            row = rows[key] = len(table)
            table.append(item)
        return row

    return table, [add(tree) for tree in trees]


_leaves: dict[tuple[type, str], Expr] = {}  # variables and named constants, one node per name


def _leaf(kind: type, name: str) -> Expr:
    found = _leaves.get((kind, name))
    if found is None:
        found = _leaves[(kind, name)] = kind(name)
    return found


def decode_nodes(table: list[Any]) -> list[Expr]:
    """The nodes of an ``encode_nodes`` table, each built once, hashed as built (the judge
    compares them all), in one loop: children come before their parents."""
    nodes: list[Expr] = []
    append = nodes.append
    for item in table:
        kind = type(item)
        if kind is list:
            size = len(item)
            if size == 3:  # a binary operator, two in three nodes: its arguments without a slice and a loop
                append(hashed_call(item[0], (nodes[item[1]], nodes[item[2]])))
            elif size == 1:
                append(_leaf(Const, item[0]))
            else:
                append(hashed_call(item[0], tuple([nodes[row] for row in item[1:]])))
        elif kind is str:
            append(_leaf(Var, item))
        else:
            append(Num(float(item)))
    return nodes


def _depth(expr: Expr) -> int:
    deepest, stack = 0, [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if type(node) is Call:
            stack.extend((arg, depth + 1) for arg in node.args)
    return deepest


_NODES = ("written_structure", "written_exponents")  # kept as internal nodes (``masking.written_nodes``)


def _as_tree(name: str, value: Any) -> Expr:
    return to_expr(value) if name in _NODES else value


def _as_kept(name: str, tree: Expr) -> Any:
    return from_expr(tree) if name in _NODES else tree


def encode_facts(facts: FormulaFacts, truth: Expr) -> dict[str, Any] | None:
    """``facts`` of the parsed ``truth``, and the tree, as JSON-ready data; None when they cannot be
    shipped (an incomplete canonical form, which depends on the machine's speed, or a tree too deep
    to encode by recursion)."""
    trees = [truth, *(_as_tree(name, getattr(facts, name)) for name in _TREES)]
    if not facts.complete or any(_depth(tree) > MAX_DEPTH for tree in trees):
        return None
    table, roots = encode_nodes(trees)
    data: dict[str, Any] = {"nodes": table, "truth": roots[0], "trees": roots[1:]}
    data.update(tokens=list(facts.tokens), variables=sorted(facts.variables), constants=facts.constants,
                nesting=facts.nesting, mdl=facts.mdl)  # fmt: skip
    return data


def decode_facts(data: dict[str, Any]) -> tuple[Expr, FormulaFacts]:
    """The parsed truth and its facts, from ``encode_facts``' data."""
    tokens = tuple(data["tokens"])
    nodes = decode_nodes(data["nodes"])
    trees = {name: _as_kept(name, nodes[row]) for name, row in zip(_TREES, data["trees"])}
    truth = nodes[data["truth"]]
    return truth, FormulaFacts(
        canonical=trees["canonical"],
        structure=trees["structure"],
        exponents=trees["exponents"],
        source=truth,
        _raw=trees["raw_structure"],
        _written=(trees["written_structure"], trees["written_exponents"]),
        complete=True,
        tokens=tokens,
        token_set=frozenset(tokens),
        variables=frozenset(data["variables"]),
        constants=data["constants"],
        nesting=data["nesting"],
        mdl=data["mdl"],
    )


def read_file(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """A facts file's header and its entries, each still JSON text: an entry is decoded only when
    its truth is scored (a pass over a few problems of many catalogs reads a few of each)."""
    header, *lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    return json.loads(header), dict(line.split("\t", 1) for line in lines)


def _entries(catalog: str) -> dict[str, str]:
    """The shipped entries of ``catalog`` (empty when there is no file for this judge)."""
    with _lock:
        found = _files.get(catalog)
    if found is not None:
        return found
    path = DATA_DIR / f"{catalog}{SUFFIX}"
    entries: dict[str, str] = {}
    if "/" not in catalog and "\\" not in catalog and path.is_file():
        header, entries = read_file(path)
        if header.get("judge_version") != JUDGE_VERSION or header.get("format") != FORMAT:
            entries = {}
    with _lock:
        _files[catalog] = entries
    return entries


@functools.lru_cache(maxsize=16)  # a problem's draws and conditions are scored one after another
def shipped_truth(catalog: str, key: str) -> tuple[Expr, FormulaFacts] | None:
    """The truth ``key`` (``entry_key``) of catalog ``catalog`` as its formula parses (over the
    key's variables, as ``admission.parse_formula`` reads it) and its facts; None when not shipped."""
    text = _entries(catalog).get(key)
    return None if text is None else decode_facts(json.loads(text))


def write_file(path: Path, catalog: str, version: int, entries: dict[str, dict[str, Any]]) -> None:
    """One catalog's facts file (``tools/truth_facts.py``), gzipped text: a header line (JSON), then
    one line per truth, keys sorted: its key, a tab, its facts (JSON; JSON text has no raw tab)."""
    header = {"about": f"srbf judge facts of catalog {catalog!r} version {version}; written by tools/truth_facts.py",
              "judge_version": JUDGE_VERSION, "format": FORMAT, "catalog_version": version}  # fmt: skip
    lines = [json.dumps(header)]
    lines += [f"{key}\t{json.dumps(entries[key], separators=(',', ':'))}" for key in sorted(entries)]
    text = "\n".join(lines) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))  # the same bytes every time
