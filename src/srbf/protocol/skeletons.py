"""A formula's skeleton: what stays when its numbers and its variable names no longer count.

Decontamination asks whether a benchmark formula is among the formulas a method was trained on,
up to the two things a training generator changes freely: the constants and the names of the
inputs. The skeleton is srbf's masked canonical form (``srbf.expr.masking``; by default at level
"structure", every number masked, exponents included, so the check errs towards a match) with the
variables renamed ``v1, v2, ...`` in order of first appearance. A masked coefficient or added
constant, and a sign (a coefficient of -1), is then dropped from its product or sum: a generator
that draws constants also draws 1, 0 and -1, so ``c*x + y``, ``x + y`` and ``x - y`` are one
skeleton (the canonical form's choice of which side of a difference carries the sign depends on
the names, which would otherwise leak into the skeleton).

"First appearance" must not depend on the names themselves, but the canonical form sorts sums and
products by name. So the order is taken in three steps: each variable gets a name-blind signature
(the functions and power positions on the paths from the root to each of its occurrences); the
variables are ordered by signature; variables with equal signatures are tried in every order (up
to ``MAX_ORDERS`` orders) and the smallest printed skeleton wins. Past that many orders (I.9.18,
with its three symmetric differences, has 4,320) ties keep their order of first appearance in the
canonical form and the skeleton says ``exhaustive=False``: its text may then differ from a renamed
copy's. Every skeleton also has a ``shape``, which never depends on the names (every variable
written ``v``, sums and products sorted by their printed terms, plus the sorted signatures): a
coarser key that two different formulas may share, used where the exact text cannot be trusted.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from srbf.expr.masking import MASK, masked_form
from srbf.expr.printer import to_infix
from srbf.expr.tree import Call, Expr, Num, Var, rebuild, variables_of

__all__ = ["MAX_ORDERS", "Skeleton", "skeleton"]

MAX_ORDERS = 720  # 6! orders of tied variables; a few ms each
TIME_LIMIT = 10.0  # seconds of canonicalisation per formula: generous, a cut-short form is unverifiable
_COMMUTATIVE = {"add", "mul"}


@dataclass(frozen=True)
class Skeleton:
    """``text``: the printed skeleton; ``shape``: the name-blind key; ``complete``: the canonical
    form finished within its time limit; ``exhaustive``: every order of tied variables was tried
    (else ``text`` may differ from a renamed copy's, and ``shape`` is the key to compare)."""

    text: str
    shape: str
    complete: bool
    exhaustive: bool


def _is_dropped(node: Expr) -> bool:
    return node == MASK or (type(node) is Num and node.value == -1)


def _without_coefficients(expr: Expr) -> Expr:
    """``expr`` with masked numbers and signs dropped from sums and products (see above)."""

    def call(node: Call, args: tuple) -> Expr:
        if node.op == "neg":
            return args[0]
        if node.op in _COMMUTATIVE:
            kept = tuple(arg for arg in args if not _is_dropped(arg))
            return MASK if not kept else kept[0] if len(kept) == 1 else Call(node.op, kept)
        return Call(node.op, args)

    return rebuild(expr, lambda leaf: leaf, call)


def _signatures(tree: Expr) -> dict[str, tuple]:
    """Each variable's name-blind signature: the sorted paths to its occurrences, a path being
    the non-commutative calls passed on the way (a power with the argument position taken)."""
    paths: dict[str, list[tuple]] = {}
    stack: list[tuple[Expr, tuple]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Var):
            paths.setdefault(node.name, []).append(path)
        elif isinstance(node, Call):
            for index, arg in enumerate(node.args):
                if node.op in _COMMUTATIVE:
                    step = path
                else:
                    step = path + ((node.op, index if len(node.args) > 1 else 0),)
                stack.append((arg, step))
    return {name: tuple(sorted(found)) for name, found in paths.items()}


def _first_appearance(tree: Expr) -> list[str]:
    """Variable names in prefix order of first appearance."""
    order: dict[str, None] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Var):
            order.setdefault(node.name, None)
        elif isinstance(node, Call):
            stack.extend(reversed(node.args))
    return list(order)


def _renamed(expr: Expr, names: dict[str, str]) -> Expr:
    return rebuild(expr, lambda leaf: Var(names[leaf.name]) if isinstance(leaf, Var) else leaf,
                   lambda node, args: Call(node.op, args))


def _shape(tree: Expr, signature: dict[str, tuple]) -> str:
    """The name-blind key: all variables ``v``, commutative arguments sorted by their text."""

    def call(node: Call, args: tuple) -> Expr:
        if node.op in _COMMUTATIVE:
            args = tuple(sorted(args, key=to_infix))
        return Call(node.op, args)

    blind = rebuild(tree, lambda leaf: Var("v") if isinstance(leaf, Var) else leaf, call)
    return f"{to_infix(blind)} | {sorted(signature.values())}"


def skeleton(expr: Expr, level: str = "structure", *, time_limit: float = TIME_LIMIT) -> Skeleton:
    """The skeleton of ``expr`` (see the module's docstring)."""
    form = masked_form(expr, level, time_limit=time_limit)
    tree = _without_coefficients(form.expr)
    if not variables_of(tree):
        text = to_infix(tree)
        return Skeleton(text, text, form.complete, True)
    signature = _signatures(tree)
    first = {name: i for i, name in enumerate(_first_appearance(tree))}
    ordered = sorted(signature, key=lambda name: (signature[name], first[name]))
    groups = [list(group) for _, group in itertools.groupby(ordered, key=signature.__getitem__)]
    orders = math.prod(math.factorial(len(group)) for group in groups)
    exhaustive = orders <= MAX_ORDERS
    candidates = itertools.product(*(itertools.permutations(g) for g in groups)) if exhaustive else [groups]
    best, complete = None, form.complete
    for choice in candidates:
        names = {name: f"v{i + 1}" for i, name in enumerate(itertools.chain.from_iterable(choice))}
        renamed = masked_form(_renamed(tree, names), level, time_limit=time_limit)
        text = to_infix(_without_coefficients(renamed.expr))
        complete = complete and renamed.complete
        if best is None or text < best:
            best = text
    return Skeleton(best, _shape(tree, signature), complete, exhaustive)
