"""The import graph between srbf's packages runs one way: core -> expr -> catalogs -> protocol -> methods ->
store -> runs -> judge -> stats -> arena -> distill -> report -> site -> api -> cli (README, "Layout").

Every module under src/srbf is read with ``ast`` (nothing is imported), and every import in it
counts: module level and inside functions, absolute and relative. A package may import itself and
the packages before it; an import of a later package, or a cycle between packages, fails.
``srbf/__init__.py`` hands on the API's names (``srbf.open``, ``srbf.evaluate``) by ``importlib`` on
first use (PEP 562): the package's front door, not a dependency of ``core``, so not counted here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
LAYERS = ("core", "expr", "catalogs", "protocol", "methods", "store", "runs", "judge", "stats", "arena", "distill",
          "report", "site", "api", "cli")
RANK = {name: i for i, name in enumerate(LAYERS)}


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(module: str, src: Path = SRC) -> str:
    """The layer of a module: its package under srbf; ``srbf`` itself (the version) is core, and the
    other top-level modules (``__main__``, ``demo``) belong to the command line."""
    parts = module.split(".")
    if parts[0] != "srbf":
        raise ValueError(f"{module} is not srbf's")
    if len(parts) == 1 or parts[1] == "core":
        return "core"
    if (src / "srbf" / parts[1]).is_dir():
        return parts[1]
    return "cli"


def imports_of(path: Path, src: Path = SRC) -> list[tuple[int, str]]:
    """(line, imported srbf module) for every import statement anywhere in the file."""
    module = module_name(path, src)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:  # `from srbf import judge` imports the package srbf.judge
                submodule = src / "srbf" / alias.name
                inner = target == "srbf" and (submodule.is_dir() or submodule.with_suffix(".py").is_file())
                found.append((node.lineno, f"srbf.{alias.name}" if inner else target))
    return [(line, name) for line, name in found if name == "srbf" or name.startswith("srbf.")]


def package_edges(src: Path = SRC) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> where: 'srbf/x/y.py:12 imports srbf.z.w'."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted((src / "srbf").rglob("*.py")):
        source = package_of(module_name(path, src), src)
        for line, target in imports_of(path, src):
            where = f"{path.relative_to(src)}:{line} imports {target}"
            edges.setdefault((source, package_of(target, src)), []).append(where)
    return edges


def upward(edges: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[str]]:
    """The edges that go against the layer order (or reach a package not in it)."""
    return {(a, b): where for (a, b), where in edges.items()
            if a != b and (a not in RANK or b not in RANK or RANK[b] > RANK[a])}


def cycles(edges) -> list[list[str]]:
    """Each cycle between packages once, as the packages in order (depth-first search)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
    found, seen = [], set()

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt):]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    found.append(cycle)
            else:
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    return found


@pytest.mark.slow
def test_no_package_imports_a_later_one():
    bad = upward(package_edges())
    assert not bad, "\n".join(f"{a} -> {b}: {'; '.join(w)}" for (a, b), w in sorted(bad.items()))


@pytest.mark.slow
def test_no_cycle_between_packages():
    assert cycles(package_edges()) == []


def test_every_package_is_in_the_layer_order():
    packages = {path.name for path in (SRC / "srbf").iterdir() if (path / "__init__.py").is_file()}
    assert packages <= set(LAYERS), f"packages missing from LAYERS: {sorted(packages - set(LAYERS))}"


def test_a_bad_graph_fails(tmp_path):
    """The checks see what they must: a relative import inside a function, an upward absolute one,
    `from srbf import pkg`, and the cycle they make."""
    root = tmp_path / "src" / "srbf"
    for package in ("core", "runs", "judge"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "__init__.py").write_text("__version__ = '0'\n")
    (root / "runs" / "check.py").write_text("def f():\n    from ..judge import scoring\n")
    (root / "judge" / "scoring.py").write_text("from srbf.runs import check\nfrom srbf import core\n")
    (root / "core" / "x.py").write_text("import os\nfrom srbf import judge, __version__\n")
    edges = package_edges(tmp_path / "src")
    assert set(upward(edges)) == {("runs", "judge"), ("core", "judge")}
    assert upward(edges)[("runs", "judge")] == ["srbf/runs/check.py:2 imports srbf.judge"]
    assert sorted(map(sorted, cycles(edges))) == [["core", "judge"], ["judge", "runs"]]
    assert ("judge", "core") in edges and ("judge", "runs") in edges  # allowed: downward
    assert edges[("core", "core")] == ["srbf/core/x.py:2 imports srbf"]  # the version: srbf itself


@pytest.mark.parametrize("module, layer", [("srbf", "core"), ("srbf.core", "core"), ("srbf.__main__", "cli"),
                                           ("srbf.demo", "cli"), ("srbf.cli.check", "cli"),
                                           ("srbf.runs.check", "runs")])
def test_package_of(module, layer):
    assert package_of(module) == layer
