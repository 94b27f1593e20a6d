"""srbf's public surface: what a user may import, and that every name it promises exists.

The rule (docs/design.md, "The public surface"): a public name is one in the ``__all__`` of
``srbf``, of ``srbf.core`` or of a package ``srbf.<package>``; everything else (a module inside a
package, a name with a leading underscore) may change without notice. Every package declares its
names one way (``_EXPORTS``, ``__all__ = sorted(_EXPORTS)``, ``__getattr__ = lazy_attributes(...)``),
so importing a package loads nothing heavy until a name is used.

After scikit-learn's ``test_import_all_consistency``: every ``__all__`` name resolves, to the object
its module defines, never to a module of the same name. The docs and the README import only public
names, in the form a user is taught.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import srbf
import srbf.core

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(m.name for m in pkgutil.iter_modules(srbf.__path__) if m.ispkg and m.name != "configs")
THE_COMMAND = "cli"  # its __init__ is the command itself (main, build_parser), not a re-export
HEAVY = ("numpy", "pandas", "scipy", "sympy", "matplotlib", "pydantic", "yaml")
# packages whose public names need the heavy libraries at import time: arena's collect and
# profile share their modules' names, so they are bound when the package is imported
HEAVY_AT_IMPORT = {"arena": {"numpy", "pandas", "pydantic", "yaml"}, "expr": {"numpy"}}


def _public(module_name: str) -> list[str]:
    return list(importlib.import_module(module_name).__all__)


@pytest.mark.parametrize("package", PACKAGES)
def test_import_all_consistency(package):
    module = importlib.import_module(f"srbf.{package}")
    names = module.__all__
    assert len(names) == len(set(names)), f"srbf.{package}.__all__ repeats a name"
    for name in names:
        value = getattr(module, name)
        assert not isinstance(value, types.ModuleType), f"srbf.{package}.{name} is a module, not the name it exports"
    namespace: dict = {}
    exec(f"from srbf.{package} import *", namespace)
    assert set(names) <= set(namespace)


def test_names_still_resolve_after_every_module_is_imported():
    """Importing a module sets the package attribute of the same name to the module; a public name
    shared with its module must survive that (``srbf.expr.canonical`` stays the function)."""
    for package in PACKAGES:
        for info in pkgutil.walk_packages(importlib.import_module(f"srbf.{package}").__path__, f"srbf.{package}."):
            if info.name.count(".") == 2 and not info.name.endswith(("__main__", "worker_main", "srbench_main")):
                importlib.import_module(info.name)
    for package in PACKAGES:
        module = sys.modules[f"srbf.{package}"]
        for name in module.__all__:
            assert not isinstance(getattr(module, name), types.ModuleType), f"srbf.{package}.{name}"


@pytest.mark.parametrize("module", [srbf, srbf.core], ids=["srbf", "srbf.core"])
def test_top_level_exports_resolve(module):
    for name in getattr(module, "__all__", ()):
        assert hasattr(module, name), f"{module.__name__}.{name}"


@pytest.mark.parametrize("package", [p for p in PACKAGES if p != THE_COMMAND])
def test_every_package_declares_its_names_one_way(package):
    tree = ast.parse((ROOT / "src" / "srbf" / package / "__init__.py").read_text(encoding="utf-8"))
    assigned = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    assert isinstance(assigned.get("_EXPORTS"), ast.Dict), f"srbf.{package}: no _EXPORTS dict"
    assert ast.unparse(assigned["__all__"]) == "sorted(_EXPORTS)"
    assert ast.unparse(assigned["__getattr__"]) == "lazy_attributes(__name__, _EXPORTS)"
    imports = [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports == ["from __future__ import annotations", "from srbf.core import lazy_attributes"], imports
    exports = ast.literal_eval(assigned["_EXPORTS"])
    assert all(source.startswith(f"srbf.{package}.") for source in exports.values())


@pytest.mark.parametrize("package", PACKAGES)
def test_importing_a_package_stays_light(package):
    code = f"import json, sys; import srbf.{package}; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                           check=True).stdout)) & set(HEAVY)
    assert loaded <= HEAVY_AT_IMPORT.get(package, set()), f"import srbf.{package} loads {sorted(loaded)}"


# --- the docs teach public names only -------------------------------------------------------------

FENCE = re.compile(r"^```(?:python|py|pycon)\s*\n(.*?)^```", re.M | re.S)
IMPORT_LINE = re.compile(r"^\s*(?:>>> |\.\.\. )?((?:from|import)\s+srbf\b[^\n]*(?:\([^)]*\))?)", re.M)


def _documents() -> list[Path]:
    return sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _imports(text: str) -> list[tuple[int, ast.stmt]]:
    """(line in the document, import statement of srbf) in every Python code block of ``text``."""
    found = []
    for block in FENCE.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        for match in IMPORT_LINE.finditer(block.group(1)):
            line = first + block.group(1).count("\n", 0, match.start())
            statement = re.sub(r"\s*#.*", "", match.group(1)) if "(" not in match.group(1) else match.group(1)
            found.append((line, ast.parse(statement.strip()).body[0]))
    return found


def public_import_problems(statement: ast.stmt) -> list[str]:
    """What in one import statement is not public; [] when all of it is."""
    top = set(getattr(srbf, "__all__", ())) | {"__version__"} | set(PACKAGES) | {"core"}
    public = {f"srbf.{p}" for p in [*PACKAGES, "core"]} | {"srbf"}
    if isinstance(statement, ast.Import):
        return [f"import {a.name}: a module inside a package (import the package)" for a in statement.names
                if a.name not in public]
    assert isinstance(statement, ast.ImportFrom)
    module = statement.module or ""
    if module == "srbf":
        return [f"srbf.{a.name} is not public" for a in statement.names if a.name not in top]
    if module not in public:
        names = ", ".join(a.name for a in statement.names)
        homes = sorted({f"srbf.{p}" for p in [*PACKAGES, "core"] for a in statement.names if a.name in _public(f"srbf.{p}")})
        return [f"from {module} import {names}: a module inside a package"
                + (f"; import it from {', '.join(homes)}" if homes else "; export it from its package first")]
    names = set(_public(module))
    return [f"{module}.{a.name} is not in {module}.__all__" for a in statement.names if a.name not in names]


@pytest.mark.parametrize("document", _documents(), ids=lambda p: p.name)
def test_docs_import_only_public_names(document):
    problems = [f"{document.name}:{line}: {problem}" for line, statement in _imports(document.read_text(encoding="utf-8"))
                for problem in public_import_problems(statement)]
    assert not problems, "\n".join(problems)


def test_the_docs_check_finds_a_deep_import():
    """The check can fail: a deep import, a private name and an unknown name are all refused."""
    text = "```python\nfrom srbf.runs.driver import run_config\nfrom srbf.runs import _x\nimport srbf.store.rows\n```\n"
    problems = [p for _, s in _imports(text) for p in public_import_problems(s)]
    assert problems == ["from srbf.runs.driver import run_config: a module inside a package; import it from srbf.runs",
                        "srbf.runs._x is not in srbf.runs.__all__",
                        "import srbf.store.rows: a module inside a package (import the package)"]
