"""Every shipped configuration says who chose it, and why it departs from a method's defaults.

The shipped run configs (src/srbf/configs/) and every roster method's method.yaml (its ``run``
block and each named configuration under ``configs``) must state ``config_provenance``, and
every option they set (anything in ``options``: a method's defaults are no options at all) must
carry a comment saying why: on its own line, on the comment line right above it, or (for options
written on one line) on the line naming the configuration. The file is
read with PyYAML's node composer, which keeps line numbers; comments are read from the text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SRC = Path(__file__).resolve().parents[2] / "src" / "srbf"
RUN_CONFIGS = sorted(p for p in (SRC / "configs").rglob("*.yaml") if p.relative_to(SRC / "configs").parts[0] != "catalogs")
METHOD_FILES = sorted((SRC / "methods").glob("*/method.yaml"))


def _mapping(node) -> dict:
    return {key.value: value for key, value in node.value} if isinstance(node, yaml.MappingNode) else {}


def _keys(node) -> dict:
    return {key.value: key for key, _ in node.value} if isinstance(node, yaml.MappingNode) else {}


def _comment_on(text: str) -> bool:
    return "#" in text.split(":", 1)[-1]


def _has_comment(lines: list[str], line: int, owner: int | None = None) -> bool:
    """A '#' comment on line ``line`` (0-based), on the comment-only line right above it, or on
    line ``owner`` (the line naming the configuration the options belong to)."""
    if _comment_on(lines[line]) or (line > 0 and lines[line - 1].lstrip().startswith("#")):
        return True
    return owner is not None and _comment_on(lines[owner])


def method_entries(root, method_file: bool) -> list[tuple[str, object]]:
    """(where, mapping node, line of the key naming it or None) of every method configuration in a file."""
    top, keys = _mapping(root), _keys(root)
    if method_file:
        found = [("run", top["run"], keys["run"].start_mark.line)] if "run" in top else []
        named = _keys(top.get("configs"))
        return found + [(f"configs.{name}", node, named[name].start_mark.line)
                        for name, node in _mapping(top.get("configs")).items()]
    if "method" in top:
        return [("method", top["method"], keys["method"].start_mark.line)]
    return [(f"methods[{i}]", node, None) for i, node in enumerate(getattr(top.get("methods"), "value", []))]


def label_problems(path: Path, method_file: bool) -> list[str]:
    """What is wrong with a file's labels, one line each ('' when nothing)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    problems = []
    for where, node, owner in method_entries(yaml.compose(text), method_file):
        entry, keys = _mapping(node), _keys(node)
        if not isinstance(node, yaml.MappingNode):
            problems.append(f"{path.name}: {where}: names a method without config_provenance")
            continue
        if "config_provenance" not in entry:
            problems.append(f"{path.name}: {where}: no config_provenance")
        options = entry.get("options")
        if options is None or not options.value:
            continue
        if options.flow_style:
            if not _has_comment(lines, keys["options"].start_mark.line, owner):
                problems.append(f"{path.name}: {where}.options: set without a comment saying why")
            continue
        for name, key in _keys(options).items():
            if not _has_comment(lines, key.start_mark.line):
                problems.append(f"{path.name}: {where}.options.{name}: set without a comment saying why")
    return problems


@pytest.mark.parametrize("path", RUN_CONFIGS + METHOD_FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_shipped_configs_are_labelled_and_explained(path):
    assert label_problems(path, path.name == "method.yaml") == []


def test_there_are_shipped_configs():
    assert len(RUN_CONFIGS) >= 5 and len(METHOD_FILES) >= 10


@pytest.mark.parametrize("text, method_file, expected", [
    ("experiment: x\nmethod:\n  name: a\n  options: {}\n", False, ["c.yaml: method: no config_provenance"]),
    ("experiment: x\nmethods:\n- name: a\n  config_provenance: harness_tuned\n  options:\n    k: 3\n", False,
     ["c.yaml: methods[0].options.k: set without a comment saying why"]),
    ("experiment: x\nmethods:\n- name: a\n  config_provenance: harness_tuned\n  options:\n    k: 3   # the paper's k\n", False, []),
    ("experiment: x\nmethods:\n- name: a\n  config_provenance: harness_tuned\n  options:\n    # the paper's k\n    k: 3\n", False, []),
    ("run:\n  options: {}\n  config_provenance: upstream_default\nconfigs:\n  fast:\n    options: {params: {n: 1}}\n", True,
     ["c.yaml: configs.fast: no config_provenance", "c.yaml: configs.fast.options: set without a comment saying why"]),
    ("run:\n  options: {}\n  config_provenance: upstream_default\nconfigs:\n  fast:   # its authors' settings\n"
     "    options: {params: {n: 1}}\n    config_provenance: author_blessed\n", True, []),
    ("run:\n  options: {}   # none\n", True, ["c.yaml: run: no config_provenance"]),
])
def test_the_check_finds_what_is_missing(tmp_path, text, method_file, expected):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert label_problems(path, method_file) == expected
