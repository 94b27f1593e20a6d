"""Duplicate groups: catalog formulas that are one task up to their constants and variable names.

Two formulas share a group when their skeletons coincide (``srbf.protocol.skeletons``): the
canonical form with every number but exponents masked (``x**2`` and ``x**3`` stay apart), masked
coefficients, added constants and signs dropped, and the variables renamed ``v1, v2, ...`` by
position, so ``2.1*sin(a)*b`` in one set and ``sin(x)*y`` in another are one group. When the tied
variables were too many to try every order, the skeleton's name-blind ``shape`` is the key
instead (coarser, never finer). This is SymbolicArena's semantic duplicate group (its Appendix
B.2) made deterministic: the distilled core takes at most one task per group.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from srbf.catalogs.loader import load_catalog
from srbf.core import SrbfError
from srbf.expr.parser import parse
from srbf.protocol.skeletons import skeleton

__all__ = ["LEVEL", "RULE", "DuplicateGroup", "duplicate_groups", "formula_key", "group_id"]

LEVEL = "exponents"
RULE = ("same skeleton: canonical form with every number but exponents masked, coefficients, added constants "
        "and signs dropped, variables renamed v1, v2, ... by position (srbf.protocol.skeletons, level "
        f"'{LEVEL}'; the name-blind shape when the variable orders were too many to try)")  # fmt: skip


@dataclass(frozen=True)
class DuplicateGroup:
    """One group: its id, the shared key, and its members as ``set/problem_id`` (in catalog order)."""

    group: str
    key: str
    members: tuple[str, ...]


def formula_key(formula: str, variables: Iterable[str]) -> str:
    """The key two duplicate formulas share (see the module docstring)."""
    found = skeleton(parse(formula, list(variables)), LEVEL)
    return found.text if found.exhaustive else f"shape: {found.shape}"


def group_id(key: str) -> str:
    """A short stable id for a key: ``dup-`` and 10 hex digits of its sha256."""
    return "dup-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:10]


def duplicate_groups(catalogs: Iterable[str], *, limit: int | None = None) -> list[DuplicateGroup]:
    """Every group of the catalogs' formulas (names or paths; the first ``limit`` problems of each),
    singletons included, in order of first member. A formula that does not parse is its own group."""
    by_key: dict[str, list[str]] = defaultdict(list)
    for name in catalogs:
        catalog = load_catalog(name, admit=False)
        for entry in catalog.entries[:limit]:
            try:
                key = formula_key(entry.formula, (v.name for v in entry.variables))
            except SrbfError as error:  # an unparsable formula is unique, not fatal
                key = f"unparsed {catalog.name}/{entry.id}: {type(error).__name__}"
            by_key[key].append(f"{catalog.name}/{entry.id}")
    return [DuplicateGroup(group_id(key), key, tuple(members)) for key, members in by_key.items()]
