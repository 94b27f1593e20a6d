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
its check is not made (the kind does not apply to that formula). ``benchmarks/judge_mutations.py``
runs every kind over all shipped formulas; ``tests/judge/test_mutations.py`` a sampled slice.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.tree import Call, Const, Expr, Num, Var, rebuild, variables_of
from srbf.judge.formula_facts import describe, structural_matches

__all__ = ["EQUAL_KINDS", "KINDS", "Mutant", "UNEQUAL_KINDS", "judged", "mutants", "routes", "shuffle_terms"]

EQUAL_KINDS = ("commute", "reassociate", "reorder_terms", "rename_variables", "number_spelling", "documented_rewrite")
UNEQUAL_KINDS = ("flip_sign", "sign_literal", "add_coefficient", "change_exponent", "swap_variables", "drop_term",
                 "add_term")  # fmt: skip
KINDS = EQUAL_KINDS + UNEQUAL_KINDS

_SUM, _PRODUCT = ("add", "sub"), ("mul", "div")
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


# -- chains of sums and products, as written ---------------------------------------------------


def _operands(node: Expr, ops: tuple[str, str]) -> list[tuple[Expr, bool]]:
    """The operands of a written chain of ``ops`` with whether each is subtracted (divided by)."""
    out: list[tuple[Expr, bool]] = []
    stack = [(node, False)]
    while stack:
        current, flipped = stack.pop()
        if type(current) is Call and current.op in ops and len(current.args) == 2:
            stack.append((current.args[1], flipped != (current.op == ops[1])))
            stack.append((current.args[0], flipped))
        else:
            out.append((current, flipped))
    return out


def _sum_of(operands: list[tuple[Expr, bool]]) -> Expr:
    first, negated = operands[0]
    total = Call("neg", (first,)) if negated else first
    for operand, negated in operands[1:]:
        total = Call("sub" if negated else "add", (total, operand))
    return total


def _product_of(operands: list[tuple[Expr, bool]]) -> Expr:
    """Numerator factors first, then the divisors, so that no literal 1 is written."""
    numerator = [o for o, inverted in operands if not inverted] or [Num(1.0)]
    total = numerator[0]
    for factor in numerator[1:]:
        total = Call("mul", (total, factor))
    for divisor in (o for o, inverted in operands if inverted):
        total = Call("div", (total, divisor))
    return total


def _is_chain(node: Expr, ops: tuple[str, str]) -> bool:
    return type(node) is Call and node.op in ops and len(node.args) == 2


def _chain_roots(tree: Expr, ops: tuple[str, str]) -> list[tuple[tuple[int, ...], Expr]]:
    """Paths and nodes of the chains of ``ops`` that are not operands of a larger one."""
    roots = []
    stack: list[tuple[Expr, tuple[int, ...], bool]] = [(tree, (), False)]
    while stack:
        node, path, inside = stack.pop()
        if type(node) is not Call:
            continue
        chain = _is_chain(node, ops)
        if chain and not inside:
            roots.append((path, node))
        for i, arg in enumerate(node.args):
            stack.append((arg, path + (i,), chain))
    return roots


def _replace(tree: Expr, path: tuple[int, ...], new: Expr) -> Expr:
    if not path:
        return new
    args = list(tree.args)
    args[path[0]] = _replace(args[path[0]], path[1:], new)
    return Call(tree.op, tuple(args))


def _has_variable(node: Expr) -> bool:
    return bool(variables_of(node))


# -- rewriting every chain -----------------------------------------------------------------------


def _reordered(tree: Expr, order: Callable[[list], list]) -> Expr:
    """``tree`` with the operands of every sum and product chain put in ``order`` (bottom-up)."""

    def call(node: Call, args: tuple) -> Expr:
        return Call(node.op, args)

    def rewrite(node: Expr) -> Expr:
        if type(node) is not Call:
            return node
        for ops, build in ((_SUM, _sum_of), (_PRODUCT, _product_of)):
            if _is_chain(node, ops):
                operands = [(rewrite(o), flag) for o, flag in _operands(node, ops)]
                return build(order(operands))
        return Call(node.op, tuple(rewrite(arg) for arg in node.args))

    return rewrite(tree)


def shuffle_terms(tree: Expr, rng: random.Random) -> Expr:
    """``tree`` with the terms of every sum and the factors of every product in a random order
    (signs and divisions kept with their operands): the same formula, written in another order."""
    return _reordered(tree, lambda operands: rng.sample(operands, len(operands)))


def _commuted(tree: Expr) -> Expr:
    return rebuild(tree, lambda leaf: leaf,
                   lambda node, args: Call(node.op, args[::-1] if node.op in ("add", "mul") else args))  # fmt: skip


def _reassociated(tree: Expr) -> Expr:
    """Chains of ``+`` and of ``*`` nested to the right: ``a + (b + c)``."""

    def right(node: Call, args: tuple) -> Expr:
        if node.op not in ("add", "mul") or len(args) != 2:
            return Call(node.op, args)
        flat: list[Expr] = []
        for arg in args:
            flat.extend(_operands_plain(arg, node.op))
        total = flat[-1]
        for operand in reversed(flat[:-1]):
            total = Call(node.op, (operand, total))
        return total

    return rebuild(tree, lambda leaf: leaf, right)


def _operands_plain(node: Expr, op: str) -> list[Expr]:
    if type(node) is Call and node.op == op and len(node.args) == 2:
        return _operands_plain(node.args[0], op) + _operands_plain(node.args[1], op)
    return [node]


def _renamed(tree: Expr, mapping: dict[str, str]) -> Expr:
    return rebuild(tree, lambda leaf: Var(mapping[leaf.name]) if type(leaf) is Var else leaf,
                   lambda node, args: Call(node.op, args))  # fmt: skip


_SPELLED = {math.pi: Const("pi"), math.e: Const("e")}


def _spelled(tree: Expr) -> Expr:
    """Each number written another way: ``0.5`` as ``1/2``, ``4`` as ``8/2``, ``pi`` as its
    16-digit decimal and that decimal as ``pi``."""

    def leaf(node: Expr) -> Expr:
        if type(node) is Const and node.name in ("pi", "e"):
            return Num(math.pi if node.name == "pi" else math.e)
        if type(node) is Num:
            value = node.value
            if value in _SPELLED:
                return _SPELLED[value]
            for q in range(2, 13):
                p = value * q
                if p.is_integer() and abs(p) < 1e6:
                    return Call("div", (Num(p), Num(float(q))))
        return node

    return rebuild(tree, leaf, lambda node, args: Call(node.op, args))


def _is_canonical_sum(node: Expr, positive: frozenset) -> bool:
    from srbf.expr.canonical import canonical

    form = canonical(node, positive=positive)
    return type(form) is Call and form.op == "add"


def _documented_rewrite(tree: Expr, positive: frozenset, rng: random.Random) -> Expr | None:
    """A documented equal rewrite: a denominator cleared (``a/(p + q/r)`` is ``a*r/(p*r + q)``),
    ``x**y`` as ``exp(y*log(x))`` for a positive ``x``; else the table's spellings (``sqrt(u)``
    as ``u**0.5``, ``a/b`` as ``a*b**-1``, ``a - b`` as ``a + -1*b``)."""
    candidates = []
    stack: list[tuple[Expr, tuple[int, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is not Call:
            continue
        if node.op == "div" and _is_chain(node.args[1], _SUM):
            operands = _operands(node.args[1], _SUM)
            quotients = [o for o, _ in operands if type(o) is Call and o.op == "div" and type(o.args[1]) is Var
                         and _has_variable(o.args[0]) and not _is_canonical_sum(o.args[0], positive)]  # fmt: skip
            r = quotients[0].args[1] if quotients else None
            if quotients and not any((type(o) is Call and o.op == "div" and not _has_variable(o.args[0]))
                                     or _is_canonical_sum(o, positive)
                                     or _is_canonical_sum(Call("mul", (o, r)), positive) for o, _ in operands):  # fmt: skip
                cleared = [(o.args[0] if o is quotients[0] else Call("mul", (o, r)), flag) for o, flag in operands]
                candidates.append((path, Call("div", (Call("mul", (node.args[0], r)), _sum_of(cleared)))))
        if node.op == "pow" and type(node.args[0]) is Var and node.args[0].name in positive and type(node.args[1]) is not Num:
            candidates.append((path, Call("exp", (Call("mul", (node.args[1], Call("log", (node.args[0],)))),))))
        stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
    if candidates:
        path, new = rng.choice(candidates)
        return _replace(tree, path, new)

    def spelled(node: Call, args: tuple) -> Expr:
        if node.op == "sqrt":
            return Call("pow", (args[0], Num(0.5)))
        if node.op == "div" and len(args) == 2:
            return Call("mul", (args[0], Call("pow", (args[1], Num(-1.0)))))
        if node.op == "sub" and len(args) == 2:
            return Call("add", (args[0], Call("mul", (Num(-1.0), args[1]))))
        return Call(node.op, args)

    rewritten = rebuild(tree, lambda leaf: leaf, spelled)
    return None if rewritten == tree else rewritten


# -- the unequal kinds -----------------------------------------------------------------------------


def _sum_operand_sites(tree: Expr) -> list[tuple[tuple[int, ...], list, int]]:
    """(path of a sum chain, its operands, index) for each operand that has a variable."""
    sites = []
    for path, root in _chain_roots(tree, _SUM):
        operands = _operands(root, _SUM)
        sites.extend((path, operands, i) for i, (o, _) in enumerate(operands) if _has_variable(o))
    return sites


def _flip_sign(tree: Expr, rng: random.Random, literal: bool) -> Expr | None:
    sites = _sum_operand_sites(tree)
    if not sites:
        return None
    path, operands, i = rng.choice(sites)
    operands = list(operands)
    operand, negated = operands[i]
    if literal:  # the flipped sign written as a number: + -1*t for + t, + 1*t for - t
        operands[i] = (Call("mul", (Num(1.0 if negated else -1.0), operand)), False)
    else:
        operands[i] = (operand, not negated)
    return _replace(tree, path, _sum_of(operands))


def _coefficient_free(node: Expr, positive: frozenset) -> bool:
    """Whether the canonical form writes ``node`` with no coefficient (nor a sum to give one)."""
    from srbf.expr.canonical import canonical

    form = canonical(node, positive=positive)
    if type(form) is Num or (type(form) is Call and form.op == "add"):
        return False
    return not (type(form) is Call and form.op == "mul" and type(form.args[0]) is Num)


def _body(node: Expr, positive: frozenset) -> Expr:
    """The canonical form of ``node`` without its coefficient (or sign)."""
    from srbf.expr.canonical import canonical

    form = canonical(node, positive=positive)
    if type(form) is Call and form.op == "mul" and type(form.args[0]) is Num:
        rest = form.args[1:]
        return rest[0] if len(rest) == 1 else Call("mul", rest)
    return form


def _canonical_sums(tree: Expr, positive: frozenset) -> list[dict]:
    """Each sum of the truth's canonical form as {body: coefficient} (a sign or a number)."""
    from srbf.expr.canonical import canonical

    sums = []
    stack = [canonical(tree, positive=positive)]
    while stack:
        node = stack.pop()
        if type(node) is not Call:
            continue
        if node.op == "add":
            terms = {}
            for term in node.args:
                if type(term) is Call and term.op == "mul" and type(term.args[0]) is Num:
                    rest = term.args[1:]
                    terms[rest[0] if len(rest) == 1 else Call("mul", rest)] = term.args[0].value
                elif type(term) is not Num:
                    terms[term] = 1.0
            sums.append(terms)
        stack.extend(node.args)
    return sums


def _sum_bodies(operands: list[Expr], positive: frozenset) -> set:
    out = set()
    for o in operands:
        for terms in _canonical_sums(o, positive):
            out |= set(terms)
    return out


def _unit_in_place(operands: list[Expr], i: int, sums: list[dict], positive: frozenset) -> bool:
    """Whether the truth's canonical form writes operand ``i`` of this written sum with a
    coefficient of 1 or -1 in every canonical sum that holds all the operands' bodies (a term whose
    coefficient comes from outside its sum, ``exp(-(x + y)/2)``, has one)."""
    bodies = [_body(o, positive) for o in operands if _has_variable(o)]
    chosen = _body(operands[i], positive)
    holding = [terms for terms in sums if all(b in terms for b in bodies)]
    return bool(holding) and all(abs(terms[chosen]) == 1 for terms in holding)


def _add_coefficient(tree: Expr, positive: frozenset, rng: random.Random) -> Expr | None:
    """A coefficient on one of two or more terms of a sum that have none (on the only one, it could
    be taken out of the sum into a product's fitted coefficient: ``Y/(2*(1 + 2.5*s))`` is
    ``0.2*Y/(0.4 + s)``, the truth's family), or on the whole formula when it has none."""
    sums = _canonical_sums(tree, positive)
    free = [s for s in _sum_operand_sites(tree) if _coefficient_free(s[1][s[2]][0], positive)
            and _unit_in_place([o for o, _ in s[1]], s[2], sums, positive)]  # fmt: skip
    per_chain: dict[tuple[int, ...], int] = {}
    for path, _, _ in free:
        per_chain[path] = per_chain.get(path, 0) + 1
    sites = [s for s in free if per_chain[s[0]] > 1]
    if sites:
        path, operands, i = rng.choice(sites)
        operands = list(operands)
        operand, negated = operands[i]
        operands[i] = (Call("mul", (Num(2.5), operand)), negated)
        return _replace(tree, path, _sum_of(operands))
    if _coefficient_free(tree, positive):
        return Call("mul", (Num(2.5), tree))
    return None


def _change_exponent(tree: Expr, rng: random.Random) -> Expr | None:
    sites = []
    stack: list[tuple[Expr, tuple[int, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is not Call or node.op in ("log", "log2", "log10"):
            continue  # under a logarithm an exponent is a coefficient: log(x**2) is 2*log(x)
        if type(node.args[0]) is Call and node.args[0].op == "exp":  # exp(a)**p is exp(p*a): p is a coefficient
            stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
            continue
        if node.op == "pow" and type(node.args[1]) is Num and _has_variable(node.args[0]):
            p = node.args[1].value
            new = p + 1 if p + 1 not in (0.0, 1.0) else p - 1
            sites.append((path, Call("pow", (node.args[0], Num(new)))))
        elif node.op == "sqrt" and _has_variable(node.args[0]):
            sites.append((path, Call("pow", (node.args[0], Num(1.5)))))
        stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
    if not sites:
        return None
    path, new = rng.choice(sites)
    return _replace(tree, path, new)


def _numbers_set(tree: Expr, exponent: float | None) -> Expr:
    """``tree`` with every number that is not an exponent set to 1 and, given ``exponent``, every
    exponent set to it, a divisor's -1 and ``sqrt``'s 1/2 included (the canonical form writes them
    as exponents): what a swap of variables is judged by."""

    def call(node: Call, args: tuple) -> Expr:
        if node.op == "pow" and not _has_variable(node.args[1]):  # an exponent, however written
            if exponent is None:
                return Call("pow", (args[0], node.args[1]))
            return _raised(args[0], exponent)
        if exponent is not None and node.op in ("sqrt", "cbrt", "square", "cube", "inv"):
            return _raised(args[0], exponent)
        if exponent is not None and node.op == "div":
            return Call("mul", (args[0], _raised(args[1], exponent)))
        return Call(node.op, args)

    def leaf(node: Expr) -> Expr:  # a number's size is fitted, its sign is not
        if type(node) is Num:
            return Num(-1.0 if node.value < 0 else 1.0)
        return Num(1.0) if type(node) is Const else node

    return rebuild(tree, leaf, call)


def _raised(node: Expr, exponent: float) -> Expr:
    """``node`` to ``exponent``, distributed over a product and replacing an exponent it has."""
    if type(node) is Call and node.op in _PRODUCT and len(node.args) == 2:
        return Call("mul", (_raised(node.args[0], exponent), _raised(node.args[1], exponent)))
    if type(node) is Call and node.op == "pow" and not _has_variable(node.args[1]):
        return Call("pow", (node.args[0], Num(exponent)))
    if type(node) is Num:
        return node
    return Call("pow", (node, Num(exponent)))


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

    keep("commute", _commuted(truth), None)
    keep("reassociate", _reassociated(truth), None)
    keep("reorder_terms", shuffle_terms(truth, rng), None)
    order = rng.sample(range(len(names)), len(names))
    mapping = {name: f"v{order[i]}" for i, name in enumerate(names)}
    renamed = _renamed(truth, mapping)
    if len(names) > 1:
        keep("rename_variables", shuffle_terms(renamed, rng), None, renamed, [mapping[n] for n in names],
             frozenset(mapping[n] for n in positive))  # fmt: skip
    keep("number_spelling", _spelled(truth), None)
    keep("documented_rewrite", _documented_rewrite(truth, positive, rng), None)

    keep("flip_sign", _flip_sign(truth, rng, literal=False), "structure")
    keep("sign_literal", _flip_sign(truth, rng, literal=True), "structure")
    keep("add_coefficient", _add_coefficient(truth, positive, rng), "structure")
    keep("change_exponent", _change_exponent(truth, rng), "exponents")
    _swap(truth, names, points, rng, keep)
    sites = _sum_operand_sites(truth)
    if sites:
        path, operands, i = rng.choice(sites)
        keep("drop_term", _replace(truth, path, _sum_of([o for j, o in enumerate(operands) if j != i])), "structure")
    used = sorted(variables_of(truth))
    if used:
        roots = _chain_roots(truth, _SUM)
        path, operands = ((), [(truth, False)])
        if roots:
            path, root = rng.choice(roots)
            operands = _operands(root, _SUM)
        term = _new_term(Var(rng.choice(used)), [o for o, _ in operands], positive)
        keep("add_term", _replace(truth, path, _sum_of(operands + [(term, False)])), "structure")
    return out


def _new_term(v: Var, operands: list[Expr], positive: frozenset) -> Expr:
    """``v``, ``v**2``, ``v**3`` or ``sin(v)``: the first whose canonical body no operand has (an
    added term must not merge with one the sum has: ``x + x`` is ``2*x``)."""
    bodies = {_body(o, positive) for o in operands} | _sum_bodies(operands, positive)
    for term in (v, Call("pow", (v, Num(2.0))), Call("pow", (v, Num(3.0)))):
        if _body(term, positive) not in bodies:
            return term
    return Call("sin", (v,))


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
        swapped = _renamed(truth, mapping)
        ones = _numbers_set(truth, None)
        if points.same(_renamed(ones, mapping), truth=points.values(ones), clearly=1e-3) is not False:
            continue  # (a gap below 1e-3 may be rounding: sin of a large argument)
        twos = _numbers_set(truth, 2.0)
        symmetric = points.same(_renamed(twos, mapping), truth=points.values(twos), clearly=1e-3)
        if symmetric is None:  # rounding decides (sin of a large argument): no verdict, no mutant
            continue
        level = "exponents" if symmetric else "structure"
        keep("swap_variables", swapped, level)
        return
