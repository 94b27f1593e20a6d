"""Duplicate groups on hand-made catalogs, and ``srbf catalogs duplicates``."""

from __future__ import annotations

import json

import yaml

from srbf.cli import main
from srbf.distill.duplicates import RULE, duplicate_groups


def _catalog(path, name, problems):
    document = {"srbf_catalog": 1, "name": name, "version": 1, "problems": [
        {"id": pid, "formula": formula, "variables": [{"name": v, "range": [1, 2]} for v in variables]}
        for pid, formula, variables in problems]}  # fmt: skip
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return str(path)


def _files(tmp_path):
    one = _catalog(tmp_path / "one.yaml", "one", [
        ("A", "2.5*sin(x)*y", "xy"), ("B", "x**2 + 1", "x"), ("C", "x**3 + 1", "x"), ("D", "3*x**2 - 7", "x"),
    ])  # fmt: skip
    two = _catalog(tmp_path / "two.yaml", "two", [("E", "b*sin(a)", "ab"), ("F", "exp(u)", "u")])
    return one, two


def test_groups_within_and_across_sets(tmp_path):
    groups = duplicate_groups(_files(tmp_path))
    members = sorted(g.members for g in groups)
    # constants and names do not count; an exponent does
    assert members == [("one/A", "two/E"), ("one/B", "one/D"), ("one/C",), ("two/F",)]
    assert all(g.group.startswith("dup-") for g in groups)
    assert len({g.group for g in groups}) == 4


def test_the_command_prints_the_rule_and_the_groups(tmp_path, capsys):
    one, two = _files(tmp_path)
    assert main(["catalogs", "duplicates", one, two]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"rule: {RULE}"
    assert "one/A, two/E" in out and "one/B, one/D" in out and "one/C" not in out
    assert "6 formulas in 2 set(s): 4 groups, 2 with more than one member (4 formulas)" in out
    assert main(["catalogs", "duplicates", one, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rule"] == RULE and [g["members"] for g in data["duplicate_groups"]] == [["one/B", "one/D"]]


def test_an_unknown_set_is_one_line(capsys):
    assert main(["catalogs", "duplicates", "no-such-set"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown catalog 'no-such-set'" in err
