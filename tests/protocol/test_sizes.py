"""Size audits: node counts against hand counts, each method's rule, and ``srbf audit size``."""

from __future__ import annotations

import json

import pytest

from srbf.cli import main
from srbf.expr import parse
from srbf.protocol.sizes import SIZE_RULES, depth, operon_length


@pytest.mark.parametrize("text, nodes, operon, levels", [
    ("x", 1, 1, 1),
    ("2.5 * x", 3, 1, 2),                  # operon: one weighted variable
    ("x * 2.5 + sin(y)", 6, 4, 3),          # + (x*2.5) sin y : 1 + 3 + 2; operon 1 + 1 + 2
    ("-x / pi", 4, 4, 3),                   # / neg x pi
    ("x**2 * y", 5, 5, 3),                  # * (** x 2) y
])
def test_counts(text, nodes, operon, levels):
    tree = parse(text)
    assert SIZE_RULES["pysr"].count(tree) == nodes
    assert operon_length(tree) == operon
    assert depth(tree) == levels


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_pysr_default_on_fastsrb_is_the_seed_figure(capsys):
    """At maxsize 30, 7 of FastSRB's 120 formulas (5.8 %) cannot be represented; the largest needs 40."""
    code, out, _ = run(capsys, "audit", "size", "--method", "pysr", "fastsrb")
    assert code == 0
    assert "fastsrb: 7 of 120 formulas (5.8 %) cannot be represented; largest 40 nodes" in out
    assert "40 nodes" in out.splitlines()[3] and "B20" in out.splitlines()[3]


def test_max_nodes_json(capsys):
    code, out, _ = run(capsys, "audit", "size", "--max-nodes", "10", "nguyen", "--json")
    (nguyen,) = json.loads(out)
    sizes = {row["id"]: row["size"] for row in nguyen["cannot_represent"]}
    # Nguyen-4: x**6 + x**5 + x**4 + x**3 + x**2 + x: five + and five ** of 3 nodes each, plus x: 21
    assert sizes["Nguyen-4"] == 21 and "Nguyen-8" not in sizes  # sqrt(x1): 2 nodes
    assert all(size > 10 for size in sizes.values()) and nguyen["total"] == 12


def test_gplearn_has_no_limit(capsys):
    code, out, _ = run(capsys, "audit", "size", "--method", "gplearn", "fastsrb")
    assert code == 0 and "no size limit" in out and "fastsrb: 0 of 120" in out


def test_operon_counts_depth_too(capsys):
    code, out, _ = run(capsys, "audit", "size", "--method", "operon", "feynman", "--json")
    (feynman,) = json.loads(out)
    assert feynman["limit"] == 50 and feynman["max_depth"] == 10
    assert all(row["size"] > 50 or row["depth"] > 10 for row in feynman["cannot_represent"])


@pytest.mark.parametrize("argv, message", [
    (["--method", "pysrr", "fastsrb"], "no size rule for method 'pysrr'; did you mean 'pysr'? (known: eggp, gplearn, operon, pysr, symregg)"),
    (["fastsrb"], "give exactly one of --max-nodes N and --method NAME"),
    (["--max-nodes", "5", "nope"], "unknown catalog 'nope'"),
    (["--max-nodes", "5", "missing.yaml"], "missing.yaml: no such catalog file"),
])
def test_bad_input_is_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "audit", "size", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
