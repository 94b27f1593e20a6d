"""Every shipped configuration says who chose it, and why it departs from a method's defaults.

The shipped run configs (src/srbf/configs/) and every roster method's method.yaml (its ``run``
block and each named configuration under ``configs``) must state ``config_provenance``, and
every option they set (anything in ``options``: a method's defaults are no options at all) must
carry a comment saying why, on its own line or on the comment line right above it. The file is
read with PyYAML's node composer, which keeps line numbers; comments are read from the text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SRC = Path(__file__).resolve().parents[2] / "src" / "srbf"
RUN_CONFIGS = sorted((SRC / "configs").rglob("*.yaml"))
METHOD_FILES = sorted((SRC / "methods").glob("*/method.yaml"))


def _mapping(node) -> dict:
    return {key.value: value for key, value in node.value} if isinstance(node, yaml.MappingNode) else {}


def _keys(node) -> dict:
    return {key.value: key for key, _ in node.value} if isinstance(node, yaml.MappingNode) else {}


def _has_comment(lines: list[str], line: int) -> bool:
    """A '#' comment on line ``line`` (0-based) or on the comment-only line right above it."""
    own = lines[line]
    if "#" in own.split(":", 1)[-1]:
        return True
    return line > 0 and lines[line - 1].lstrip().startswith("#")


def method_entries(root, method_file: bool) -> list[tuple[str, object]]:
    """(where, mapping node) of every method configuration in a file."""
    top = _mapping(root)
    if method_file:
        found = [("run", top["run"])] if "run" in top else []
        return found + [(f"configs.{name}", node) for name, node in _mapping(top.get("configs")).items()]
    if "method" in top:
        return [("method", top["method"])]
    return [(f"methods[{i}]", node) for i, node in enumerate(getattr(top.get("methods"), "value", []))]


def label_problems(path: Path, method_file: bool) -> list[str]:
    """What is wrong with a file's labels, one line each ('' when nothing)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    problems = []
    for where, node in method_entries(yaml.compose(text), method_file):
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
            if not _has_comment(lines, keys["options"].start_mark.line):
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
    ("run:\n  options: {}   # none\n", True, ["c.yaml: run: no config_provenance"]),
])
def test_the_check_finds_what_is_missing(tmp_path, text, method_file, expected):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert label_problems(path, method_file) == expected
