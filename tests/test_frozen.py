"""No code in srbf writes into a frozen object: a frozen dataclass or pydantic model is made by its
constructor (or ``dataclasses.replace`` / ``model_copy``), never filled in behind its back.

Every module under src/srbf is read with ``ast`` (nothing is imported) for the back doors: a write
through an object's ``__dict__`` (``x.__dict__.update``, ``x.__dict__[k] = v``, ``vars(x)``),
``object.__new__`` (an instance made without its ``__init__``), a slot's own setter
(``Cls.field.__set__``), and ``object.__setattr__`` / ``object.__delattr__``, which only a plain
class that defines its own ``__setattr__`` (a proxy setting its own attributes) may call. A type
that must change for speed is made plainly mutable instead, and says why (``srbf.expr.tree``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "srbf"


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of names and attributes, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _defines_setattr(cls: ast.ClassDef) -> bool:
    return any(isinstance(item, ast.FunctionDef) and item.name == "__setattr__" for item in cls.body)


def _is_dataclass(cls: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(decorator) for decorator in cls.decorator_list)


def back_doors(source: str) -> list[tuple[int, str]]:
    """(line, what) for every write into an object that bypasses its constructor or its frozen
    ``__setattr__``."""
    found = []

    def visit(node: ast.AST, cls: ast.ClassDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            visit(child, child if isinstance(child, ast.ClassDef) else cls)
        if isinstance(node, ast.Attribute) and node.attr == "__set__":
            found.append((node.lineno, f"a slot's own setter ({ast.unparse(node)})"))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
            if (isinstance(target, ast.Attribute) and target.attr == "__dict__") or (
                isinstance(target, ast.Call) and _dotted(target.func) == "vars"
            ):
                found.append((node.lineno, f"a write into {ast.unparse(target)}"))
        if not isinstance(node, ast.Call):
            return
        name = _dotted(node.func)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("update", "setdefault", "pop", "clear"):
            owner = node.func.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "__dict__") or (
                isinstance(owner, ast.Call) and _dotted(owner.func) == "vars"
            ):
                found.append((node.lineno, f"a write into {ast.unparse(owner)}"))
        if name == "object.__new__":
            found.append((node.lineno, "object.__new__ (an instance made without its constructor)"))
        if name in ("object.__setattr__", "object.__delattr__"):
            proxy = cls is not None and _defines_setattr(cls) and not _is_dataclass(cls)
            if not proxy:
                found.append((node.lineno, f"{name} outside a plain class's own __setattr__ override"))

    visit(ast.parse(source), None)
    return found


@pytest.mark.parametrize(
    "snippet",
    [
        "problem = object.__new__(Problem)",
        "model.__dict__.update(values)",
        "problem.__dict__['data_hash'] = h",
        "vars(model)['x'] = 1",
        "_set_hash = Call._hash.__set__",
        "class C:\n    def __post_init__(self):\n        object.__setattr__(self, 'i', 1)",
        "@dataclass\nclass C:\n    def __setattr__(self, k, v): pass\n"
        "    def f(self):\n        object.__setattr__(self, 'i', 1)",
    ],
)
def test_the_search_finds_each_back_door(snippet):
    assert back_doors(snippet), snippet


def test_a_proxy_may_set_its_own_attributes():
    proxy = ("class P:\n    def __init__(self, inner):\n        object.__setattr__(self, '_inner', inner)\n"
             "    def __setattr__(self, name, value):\n        setattr(self._inner, name, value)")  # fmt: skip
    assert back_doors(proxy) == []


def test_no_code_in_srbf_writes_into_a_frozen_object():
    found = [
        f"{path.relative_to(SRC.parent)}:{line}: {what}"
        for path in sorted(SRC.rglob("*.py"))
        for line, what in back_doors(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)
