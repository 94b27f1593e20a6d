"""Mutants of a catalog formula, of named kinds: the corpus that checks the judge's structural rates.

An *equal* mutant is the truth written another way (terms commuted, reassociated or reordered,
variables renamed, a number spelled another way, a documented rewrite applied): the judge must
match it at every level (``srr_structure``, ``srr_exponents``, and so ``srr_all`` once the values
agree). An *unequal* mutant changes the truth in one named way (a sign flipped, a sign written as a
literal, a coefficient put on a term that had none, an exponent changed, two variables of
different roles swapped, a term dropped or added): it must not match at the level docs/canonical.md
says the change shows (``differs_at``: "structure", or "exponents" for an exponent).

Every mutant is checked on points of the entry's declared ranges, independently of the canonical
form: an equal one must give the truth's values, an unequal one other values; a mutant that fails
its check is not made (the kind does not apply to that formula). The rewrites themselves are in
``mutation_rewrites``. ``benchmarks/judge_mutations.py`` runs every kind over all shipped formulas;
``tests/judge/test_mutations.py`` a sampled slice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.tree import Expr, Var, variables_of
from srbf.judge.formula_facts import describe, structural_matches
from srbf.judge.mutation_rewrites import (
    SUM,
    add_coefficient,
    chain_operands,
    chain_roots,
    change_exponent,
    commuted,
    documented_rewrite,
    flip_sign,
    new_term,
    numbers_set,
    reassociated,
    renamed,
    replaced_at,
    shuffle_terms,
    spelled,
    sum_of,
    sum_operand_sites,
)

__all__ = ["EQUAL_KINDS", "KINDS", "Mutant", "UNEQUAL_KINDS", "judged", "mutants", "routes", "shuffle_terms"]

EQUAL_KINDS = ("commute", "reassociate", "reorder_terms", "rename_variables", "number_spelling", "documented_rewrite")
UNEQUAL_KINDS = ("flip_sign", "sign_literal", "add_coefficient", "change_exponent", "swap_variables", "drop_term",
                 "add_term")  # fmt: skip
KINDS = EQUAL_KINDS + UNEQUAL_KINDS

_POINTS = 24


@dataclass(frozen=True)
class Mutant:
    """One mutant: the truth it is compared with (renamed for ``rename_variables``), the mutant
    itself, the positive variables both are read under, and ``differs_at``: None for an equal
    kind, else the loosest level at which it must not match."""

    kind: str
    truth: Expr
    tree: Expr
    positive: frozenset
    differs_at: str | None


def _facts(mutant: Mutant, time_limit: float):
    n = len(variables_of(mutant.truth) | variables_of(mutant.tree))
    return describe(mutant.tree, n, time_limit, mutant.positive), describe(mutant.truth, n, time_limit, mutant.positive)


def judged(mutant: Mutant, time_limit: float = 1.0) -> tuple[bool, bool, bool]:
    """(structure, exponents, canonical forms identical), as the judge compares them."""
    pred, truth = _facts(mutant, time_limit)
    structure, exponents = structural_matches(pred, truth)
    return structure, exponents, pred.canonical == truth.canonical


def routes(mutant: Mutant, time_limit: float = 1.0) -> tuple[bool, bool]:
    """Whether each route alone matches at "structure": (masked canonical forms, written forms)."""
    pred, truth = _facts(mutant, time_limit)
    return pred.structure == truth.structure, pred.written_structure == truth.written_structure


# -- checking a mutant on points ----------------------------------------------------------------------


class _Points:
    """Points drawn from an entry's declared ranges and the truth's values there."""

    def __init__(self, truth: Expr, names: list[str], specs: Iterable[Any], seed: int):
        rng = np.random.default_rng(seed)
        columns = []
        for spec in specs:
            low, high = float(spec.low), float(spec.high)
            values = rng.uniform(low, high, _POINTS)
            if spec.distribution == "integer":
                values = np.round(values)
            if spec.sign == "negative":
                values = -values
            elif spec.sign == "both":
                values = values * rng.choice([-1.0, 1.0], _POINTS)
            columns.append(values)
        self.names = names
        self.X = np.column_stack(columns) if columns else np.zeros((_POINTS, 0))
        self.y = self.values(truth)
        self.finite = np.isfinite(self.y) if self.y is not None else np.zeros(_POINTS, bool)
        self.usable = int(self.finite.sum()) >= 8

    def values(self, tree: Expr, names: list[str] | None = None) -> np.ndarray | None:
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(compile_expr(tree, names or self.names)(self.X), dtype=float)
        except Exception:  # noqa: BLE001 - a mutant that does not evaluate is not made
            return None
        return np.broadcast_to(out, (_POINTS,)) if out.ndim == 0 else out

    def same(self, tree: Expr, names: list[str] | None = None, truth: np.ndarray | None = None,
             clearly: float = 1e-6) -> bool | None:  # fmt: skip
        """True: equal values (to 1e-9, relative) wherever the truth is finite; False: other values
        (by more than ``clearly``, relative, somewhere); None: neither."""
        y = self.y if truth is None else truth
        values = self.values(tree, names)
        if values is None:
            return None
        mask = self.finite & np.isfinite(y)
        if not np.any(mask) or not np.all(np.isfinite(values[mask])):
            return None
        with np.errstate(all="ignore"):
            gap = np.abs(values[mask] - y[mask])
            scale = np.maximum(np.abs(y[mask]), np.sqrt(np.mean(np.square(y[mask]))) + 1e-300)
        if np.all(gap <= 1e-9 * scale):
            return True
        if np.any(gap > clearly * scale):
            return False
        return None


def mutants(truth: Expr, names: list[str], specs: Iterable[Any], positive: Iterable[str], seed: int = 0) -> list[Mutant]:
    """One mutant of each kind that applies to ``truth`` (read over ``names``, with the entry's
    variable ``specs`` and ``positive`` names), each checked on points of the declared ranges."""
    specs = list(specs)
    positive = frozenset(positive)
    rng = random.Random(seed)
    points = _Points(truth, names, specs, seed)
    if not points.usable:
        return []
    out: list[Mutant] = []

    def keep(kind: str, tree: Expr | None, differs_at: str | None, check_truth: Expr | None = None,
             check_names: list[str] | None = None, mutant_positive: frozenset = positive) -> None:  # fmt: skip
        if tree is None or tree == truth:
            return
        reference = None if check_truth is None else points.values(check_truth, check_names)
        same = points.same(tree, check_names, reference)
        if same is (differs_at is None):
            out.append(Mutant(kind, truth if check_truth is None else check_truth, tree, mutant_positive, differs_at))

    keep("commute", commuted(truth), None)
    keep("reassociate", reassociated(truth), None)
    keep("reorder_terms", shuffle_terms(truth, rng), None)
    order = rng.sample(range(len(names)), len(names))
    mapping = {name: f"v{order[i]}" for i, name in enumerate(names)}
    in_new_names = renamed(truth, mapping)
    if len(names) > 1:
        keep("rename_variables", shuffle_terms(in_new_names, rng), None, in_new_names, [mapping[n] for n in names],
             frozenset(mapping[n] for n in positive))  # fmt: skip
    keep("number_spelling", spelled(truth), None)
    keep("documented_rewrite", documented_rewrite(truth, positive, rng), None)

    keep("flip_sign", flip_sign(truth, rng, literal=False), "structure")
    keep("sign_literal", flip_sign(truth, rng, literal=True), "structure")
    keep("add_coefficient", add_coefficient(truth, positive, rng), "structure")
    keep("change_exponent", change_exponent(truth, rng), "exponents")
    _swap(truth, names, points, rng, keep)
    sites = sum_operand_sites(truth)
    if sites:
        path, operands, i = rng.choice(sites)
        keep("drop_term", replaced_at(truth, path, sum_of([o for j, o in enumerate(operands) if j != i])), "structure")
    used = sorted(variables_of(truth))
    if used:
        roots = chain_roots(truth, SUM)
        path, operands = ((), [(truth, False)])
        if roots:
            path, root = rng.choice(roots)
            operands = chain_operands(root, SUM)
        term = new_term(Var(rng.choice(used)), [o for o, _ in operands], positive)
        keep("add_term", replaced_at(truth, path, sum_of(operands + [(term, False)])), "structure")
    return out


def _swap(truth: Expr, names: list[str], points: _Points, rng: random.Random, keep) -> None:
    """Two variables swapped that play different roles: not symmetric even with every fitted
    number set to 1 (else the swap only moves constants, which masking hides). It must not match at
    "structure", or at "exponents" when the formula is symmetric in them once every exponent is 2
    too (the swap then only moves exponents: ``a**2*b**3``)."""
    used = [n for n in names if n in variables_of(truth)]
    pairs = [(a, b) for i, a in enumerate(used) for b in used[i + 1:]]
    rng.shuffle(pairs)
    for a, b in pairs[:4]:
        mapping = {n: n for n in names} | {a: b, b: a}
        swapped = renamed(truth, mapping)
        ones = numbers_set(truth, None)
        if points.same(renamed(ones, mapping), truth=points.values(ones), clearly=1e-3) is not False:
            continue  # (a gap below 1e-3 may be rounding: sin of a large argument)
        twos = numbers_set(truth, 2.0)
        symmetric = points.same(renamed(twos, mapping), truth=points.values(twos), clearly=1e-3)
        if symmetric is None:  # rounding decides (sin of a large argument): no verdict, no mutant
            continue
        level = "exponents" if symmetric else "structure"
        keep("swap_variables", swapped, level)
        return
