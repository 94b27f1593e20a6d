"""Complexity-budget audits: which benchmark formulas a size-limited method cannot represent.

A method whose search is capped at N nodes cannot return a formula that needs more, however well
it searches. srbf runs every method at its own defaults (docs/fairness.md) and measures what such
a cap costs instead of raising it. A formula is counted as its catalog writes it, parsed into
srbf's tree: binary ``+ - * / **``, one node per operator, variable, number and named constant
(``pi``), a unary minus one node. Each method's rule (``SIZE_RULES``) says how that method counts
and where its default comes from; the same formula written another way (constants folded,
``x*x`` for ``x**2``) may need fewer nodes, so the audit is the count of the catalog's writing,
which is also what the seed's figure for PySR counts (docs/fairness.md says how they compare).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from srbf.catalogs.model import Catalog
from srbf.core import SrbfError, did_you_mean
from srbf.expr.parser import parse
from srbf.expr.tree import Call, Expr, Num, Var, count_nodes

__all__ = ["SIZE_RULES", "AuditError", "SetAudit", "SizeRule", "audit_catalog", "depth", "nodes_rule", "operon_length", "rule_for"]


def depth(expr: Expr) -> int:
    """Levels of the tree: a leaf is depth 1 (Operon's convention)."""
    deepest, stack = 0, [(expr, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, Call):
            stack.extend((arg, level + 1) for arg in node.args)
    return deepest


def operon_length(expr: Expr) -> int:
    """Operon's length: nodes, where a variable carries its own coefficient, so ``c * x`` (a
    number times a variable, either order) is the one weighted-variable leaf."""
    total, stack = 0, [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.op == "mul" and len(node.args) == 2:
            kinds = {type(arg) for arg in node.args}
            if kinds == {Num, Var}:
                total += 1
                continue
        total += 1
        if isinstance(node, Call):
            stack.extend(node.args)
    return total


@dataclass(frozen=True)
class SizeRule:
    """How one method limits and counts a formula's size. ``max_size`` None: no limit."""

    method: str
    option: str
    max_size: int | None
    count: Callable[[Expr], int]
    counting: str
    source: str
    max_depth: int | None = None


SIZE_RULES = {
    rule.method: rule
    for rule in (
        SizeRule("pysr", "maxsize", 30, count_nodes,
                 "one node per operator, variable and constant (complexity_of_operators, _constants and "
                 "_variables all 1 by default)",
                 "pysr 2.7.2, PySRRegressor.__init__ (maxsize=30); SymbolicRegression.jl's compute_complexity"),
        SizeRule("operon", "max_length", 50, operon_length,
                 "one node per operator, variable and constant; a variable carries its coefficient, so c*x is one node",
                 "pyoperon 0.6.2, pyoperon.sklearn.SymbolicRegressor (max_length=50, max_depth=10)", max_depth=10),
        SizeRule("gplearn", "none", None, count_nodes,
                 "no size limit: init_depth (2, 6) bounds only the first generation; parsimony_coefficient "
                 "0.001 penalises length without capping it",
                 "gplearn 0.4.3, gplearn.genetic.SymbolicRegressor"),
        SizeRule("eggp", "maxSize", 15, count_nodes, "one node per operator, variable and parameter",
                 "eggp 2.2.2, eggp.EGGP.__init__ (maxSize=15); sizes counted by srtree"),
        SizeRule("symregg", "maxSize", 15, count_nodes, "one node per operator, variable and parameter",
                 "symregg 1.0.4, symregg.SymRegg.__init__ (maxSize=15); sizes counted by srtree"),
    )
}


class AuditError(SrbfError, ValueError):
    """A size audit asked for something srbf has no rule for."""


def rule_for(method: str) -> SizeRule:
    """The size rule of a method; an unknown one is an AuditError listing the known."""
    try:
        return SIZE_RULES[method]
    except KeyError:
        raise AuditError(f"no size rule for method {method!r}{did_you_mean(method, SIZE_RULES)} "
                         f"(known: {', '.join(sorted(SIZE_RULES))})") from None


def nodes_rule(max_nodes: int) -> SizeRule:
    """A plain cap of ``max_nodes`` nodes counted as written (``srbf audit size --max-nodes``)."""
    return SizeRule("nodes", "--max-nodes", max_nodes, count_nodes, "one node per operator, variable and constant",
                    "given on the command line")


@dataclass(frozen=True)
class SetAudit:
    """One catalog under one rule: every formula's (id, size, depth), and those over the cap."""

    name: str
    rule: SizeRule
    sizes: tuple[tuple[str, int, int], ...]
    over: tuple[tuple[str, int, int, str], ...]  # (id, size, depth, formula), largest first

    @property
    def largest(self) -> int:
        return max((size for _, size, _ in self.sizes), default=0)

    def to_dict(self) -> dict:
        return {"set": self.name, "method": self.rule.method, "limit": self.rule.max_size,
                "max_depth": self.rule.max_depth, "total": len(self.sizes), "largest": self.largest,
                "cannot_represent": [{"id": pid, "size": size, "depth": deep, "formula": formula}
                                     for pid, size, deep, formula in self.over]}


def _too_large(rule: SizeRule, size: int, deep: int) -> bool:
    return (rule.max_size is not None and size > rule.max_size) or (rule.max_depth is not None and deep > rule.max_depth)


def audit_catalog(catalog: Catalog, rule: SizeRule) -> SetAudit:
    """Every formula of ``catalog`` counted under ``rule``; the ones it cannot represent listed."""
    sizes, over = [], []
    for entry in catalog.entries:
        tree = parse(entry.formula, list(entry.variable_names))
        size, deep = rule.count(tree), depth(tree)
        sizes.append((entry.id, size, deep))
        if _too_large(rule, size, deep):
            over.append((entry.id, size, deep, entry.formula))
    over.sort(key=lambda row: (-row[1], row[0]))
    return SetAudit(catalog.name, rule, tuple(sizes), tuple(over))
