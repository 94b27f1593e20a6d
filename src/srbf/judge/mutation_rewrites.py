"""The rewrites that make the mutation corpus's mutants (``judge.mutations``), on formulas as written.

Equal rewrites write the same formula another way (terms commuted, reassociated, reordered,
variables renamed, numbers spelled another way, a documented canonical rule applied); unequal ones
change it in one named way (a sign, a coefficient, an exponent, a term). Each works on the written
tree: the chains of ``+``/``-`` and ``*``/``/`` a parser builds, addressed by paths of argument
indices. Where a rewrite would be absorbed by a documented canonical rule (docs/canonical.md, "The
mutation corpus"), it declines (None) or picks another site, asking the canonical form what a
truth's term looks like there.
"""

from __future__ import annotations

import math
import random
from typing import Callable

from srbf.expr.canonical import canonical
from srbf.expr.tree import Call, Const, Expr, Num, Var, rebuild, variables_of

__all__ = ["SUM", "add_coefficient", "body_of", "chain_operands", "chain_roots", "change_exponent", "commuted", "documented_rewrite", "flip_sign", "has_variable", "new_term", "numbers_set", "reassociated", "renamed", "replaced_at", "shuffle_terms", "spelled", "sum_of", "sum_operand_sites"]

SUM, _PRODUCT = ("add", "sub"), ("mul", "div")


# -- chains of sums and products, as written ---------------------------------------------------


def chain_operands(node: Expr, ops: tuple[str, str]) -> list[tuple[Expr, bool]]:
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


def sum_of(operands: list[tuple[Expr, bool]]) -> Expr:
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


def chain_roots(tree: Expr, ops: tuple[str, str]) -> list[tuple[tuple[int, ...], Expr]]:
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


def replaced_at(tree: Expr, path: tuple[int, ...], new: Expr) -> Expr:
    if not path:
        return new
    args = list(tree.args)
    args[path[0]] = replaced_at(args[path[0]], path[1:], new)
    return Call(tree.op, tuple(args))


def has_variable(node: Expr) -> bool:
    return bool(variables_of(node))


# -- rewriting every chain -----------------------------------------------------------------------


def _reordered(tree: Expr, order: Callable[[list], list]) -> Expr:
    """``tree`` with the operands of every sum and product chain put in ``order`` (bottom-up)."""

    def call(node: Call, args: tuple) -> Expr:
        return Call(node.op, args)

    def rewrite(node: Expr) -> Expr:
        if type(node) is not Call:
            return node
        for ops, build in ((SUM, sum_of), (_PRODUCT, _product_of)):
            if _is_chain(node, ops):
                operands = [(rewrite(o), flag) for o, flag in chain_operands(node, ops)]
                return build(order(operands))
        return Call(node.op, tuple(rewrite(arg) for arg in node.args))

    return rewrite(tree)


def shuffle_terms(tree: Expr, rng: random.Random) -> Expr:
    """``tree`` with the terms of every sum and the factors of every product in a random order
    (signs and divisions kept with their operands): the same formula, written in another order."""
    return _reordered(tree, lambda operands: rng.sample(operands, len(operands)))


def commuted(tree: Expr) -> Expr:
    return rebuild(tree, lambda leaf: leaf,
                   lambda node, args: Call(node.op, args[::-1] if node.op in ("add", "mul") else args))  # fmt: skip


def reassociated(tree: Expr) -> Expr:
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


def renamed(tree: Expr, mapping: dict[str, str]) -> Expr:
    return rebuild(tree, lambda leaf: Var(mapping[leaf.name]) if type(leaf) is Var else leaf,
                   lambda node, args: Call(node.op, args))  # fmt: skip


_SPELLED = {math.pi: Const("pi"), math.e: Const("e")}


def spelled(tree: Expr) -> Expr:
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
    form = canonical(node, positive=positive)
    return type(form) is Call and form.op == "add"


def documented_rewrite(tree: Expr, positive: frozenset, rng: random.Random) -> Expr | None:
    """A documented equal rewrite: a denominator cleared (``a/(p + q/r)`` is ``a*r/(p*r + q)``),
    ``x**y`` as ``exp(y*log(x))`` for a positive ``x``; else the table's spellings (``sqrt(u)``
    as ``u**0.5``, ``a/b`` as ``a*b**-1``, ``a - b`` as ``a + -1*b``)."""
    candidates = []
    stack: list[tuple[Expr, tuple[int, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is not Call:
            continue
        if node.op == "div" and _is_chain(node.args[1], SUM):
            operands = chain_operands(node.args[1], SUM)
            quotients = [o for o, _ in operands if type(o) is Call and o.op == "div" and type(o.args[1]) is Var
                         and has_variable(o.args[0]) and not _is_canonical_sum(o.args[0], positive)]  # fmt: skip
            r = quotients[0].args[1] if quotients else None
            if quotients and not any((type(o) is Call and o.op == "div" and not has_variable(o.args[0]))
                                     or _is_canonical_sum(o, positive)
                                     or _is_canonical_sum(Call("mul", (o, r)), positive) for o, _ in operands):  # fmt: skip
                cleared = [(o.args[0] if o is quotients[0] else Call("mul", (o, r)), flag) for o, flag in operands]
                candidates.append((path, Call("div", (Call("mul", (node.args[0], r)), sum_of(cleared)))))
        if node.op == "pow" and type(node.args[0]) is Var and node.args[0].name in positive and type(node.args[1]) is not Num:
            candidates.append((path, Call("exp", (Call("mul", (node.args[1], Call("log", (node.args[0],)))),))))
        stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
    if candidates:
        path, new = rng.choice(candidates)
        return replaced_at(tree, path, new)

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


def sum_operand_sites(tree: Expr) -> list[tuple[tuple[int, ...], list, int]]:
    """(path of a sum chain, its operands, index) for each operand that has a variable."""
    sites = []
    for path, root in chain_roots(tree, SUM):
        operands = chain_operands(root, SUM)
        sites.extend((path, operands, i) for i, (o, _) in enumerate(operands) if has_variable(o))
    return sites


def flip_sign(tree: Expr, rng: random.Random, literal: bool) -> Expr | None:
    sites = sum_operand_sites(tree)
    if not sites:
        return None
    path, operands, i = rng.choice(sites)
    operands = list(operands)
    operand, negated = operands[i]
    if literal:  # the flipped sign written as a number: + -1*t for + t, + 1*t for - t
        operands[i] = (Call("mul", (Num(1.0 if negated else -1.0), operand)), False)
    else:
        operands[i] = (operand, not negated)
    return replaced_at(tree, path, sum_of(operands))


def _coefficient_free(node: Expr, positive: frozenset) -> bool:
    """Whether the canonical form writes ``node`` with no coefficient (nor a sum to give one)."""
    form = canonical(node, positive=positive)
    if type(form) is Num or (type(form) is Call and form.op == "add"):
        return False
    return not (type(form) is Call and form.op == "mul" and type(form.args[0]) is Num)


def body_of(node: Expr, positive: frozenset) -> Expr:
    """The canonical form of ``node`` without its coefficient (or sign)."""
    form = canonical(node, positive=positive)
    if type(form) is Call and form.op == "mul" and type(form.args[0]) is Num:
        rest = form.args[1:]
        return rest[0] if len(rest) == 1 else Call("mul", rest)
    return form


def _canonical_sums(tree: Expr, positive: frozenset) -> list[dict]:
    """Each sum of the truth's canonical form as {body: coefficient} (a sign or a number)."""
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
    bodies = [body_of(o, positive) for o in operands if has_variable(o)]
    chosen = body_of(operands[i], positive)
    holding = [terms for terms in sums if all(b in terms for b in bodies)]
    return bool(holding) and all(abs(terms[chosen]) == 1 for terms in holding)


def add_coefficient(tree: Expr, positive: frozenset, rng: random.Random) -> Expr | None:
    """A coefficient on one of two or more terms of a sum that have none (on the only one, it could
    be taken out of the sum into a product's fitted coefficient: ``Y/(2*(1 + 2.5*s))`` is
    ``0.2*Y/(0.4 + s)``, the truth's family), or on the whole formula when it has none."""
    sums = _canonical_sums(tree, positive)
    free = [s for s in sum_operand_sites(tree) if _coefficient_free(s[1][s[2]][0], positive)
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
        return replaced_at(tree, path, sum_of(operands))
    if _coefficient_free(tree, positive):
        return Call("mul", (Num(2.5), tree))
    return None


def change_exponent(tree: Expr, rng: random.Random) -> Expr | None:
    sites = []
    stack: list[tuple[Expr, tuple[int, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is not Call or node.op in ("log", "log2", "log10"):
            continue  # under a logarithm an exponent is a coefficient: log(x**2) is 2*log(x)
        if type(node.args[0]) is Call and node.args[0].op == "exp":  # exp(a)**p is exp(p*a): p is a coefficient
            stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
            continue
        if node.op == "pow" and type(node.args[1]) is Num and has_variable(node.args[0]):
            p = node.args[1].value
            new = p + 1 if p + 1 not in (0.0, 1.0) else p - 1
            sites.append((path, Call("pow", (node.args[0], Num(new)))))
        elif node.op == "sqrt" and has_variable(node.args[0]):
            sites.append((path, Call("pow", (node.args[0], Num(1.5)))))
        stack.extend((arg, path + (i,)) for i, arg in enumerate(node.args))
    if not sites:
        return None
    path, new = rng.choice(sites)
    return replaced_at(tree, path, new)


def numbers_set(tree: Expr, exponent: float | None) -> Expr:
    """``tree`` with every number that is not an exponent set to 1 and, given ``exponent``, every
    exponent set to it, a divisor's -1 and ``sqrt``'s 1/2 included (the canonical form writes them
    as exponents): what a swap of variables is judged by."""

    def call(node: Call, args: tuple) -> Expr:
        if node.op == "pow" and not has_variable(node.args[1]):  # an exponent, however written
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
    if type(node) is Call and node.op == "pow" and not has_variable(node.args[1]):
        return Call("pow", (node.args[0], Num(exponent)))
    if type(node) is Num:
        return node
    return Call("pow", (node, Num(exponent)))


def new_term(v: Var, operands: list[Expr], positive: frozenset) -> Expr:
    """``v``, ``v**2``, ``v**3`` or ``sin(v)``: the first whose canonical body no operand has (an
    added term must not merge with one the sum has: ``x + x`` is ``2*x``)."""
    bodies = {body_of(o, positive) for o in operands} | _sum_bodies(operands, positive)
    for term in (v, Call("pow", (v, Num(2.0))), Call("pow", (v, Num(3.0)))):
        if body_of(term, positive) not in bodies:
            return term
    return Call("sin", (v,))
