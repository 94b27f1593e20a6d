"""Number masking: the skeletons the judge compares, at three levels, and the raw skeleton.

A masked number is the placeholder ``MASK = Const("<constant>")``: it prints as the token
``<constant>`` and is only ever compared and printed, never evaluated.

``mask(expr, level)`` masks the *canonical* form of ``expr``:

- ``"all"``: nothing is masked (the canonical tree itself);
- ``"exponents"``: every number except a number standing as the exponent of a power, so fitted
  coefficients, added constants and constants inside functions are masked while exponents and
  root indices (``sqrt`` is ``**0.5``, division is ``**-1``) must match;
- ``"structure"``: every number, exponents included (``x**2`` and ``x**3`` share a structure).

A sign is structure at every level: a coefficient of exactly -1 (the sign of a negated or
subtracted term) is kept, and any other negative number masks as ``-1 * <constant>``, so ``-f``
matches ``2*f`` no more than ``f`` does, and ``-2*f`` matches ``-3*f`` but not ``3*f``. At
"structure" an exponent is masked whole, sign included.

Masking is followed by a light re-normalisation, because numbers that differed no longer do:
sums and products are re-sorted, several placeholders side by side in a sum or a product merge
into one, and an operator applied to placeholders only is a placeholder. Terms or factors that
only became identical through masking are *not* merged (``2*x**2 + 3*x**3`` has the structure
``<c>*x**<c> + <c>*x**<c>``, two terms, not one). The structure level is computed from the
exponents level, and the exponents level from the canonical tree, so the levels are monotone:
equal at "all" implies equal at "exponents" implies equal at "structure".

``raw_skeleton(expr)`` is the formula as written, not canonicalised, with its numbers (and the
named constants ``pi`` and ``e``, which the canonical form treats as numbers) masked, a negative
one as ``neg(<constant>)``; literal zeros are worked out first (``drop_zeros``), so ``0*x`` never
reads as a fitted ``c*x``. ``written_skeletons(expr)`` is the same with the order of terms and
factors forgotten: the judge's second route to a structural match.
"""

from __future__ import annotations

from operator import is_

from srbf.expr.canonical import (
    DEFAULT_TIME_LIMIT,
    CanonicalForm,
    _CACHE,
    cache_key,
    canonical_node,
    positive_set,
)
from srbf.expr.canonical_nodes import CALL, MINUS_ONE, NUM, RAW, SYM, VAR, factor_key, from_expr, num, to_expr
from srbf.expr.tree import Call, Const, Expr, Num, Var, hashed_call, rebuild

__all__ = ["LEVELS", "MASK", "drop_zeros", "mask", "masked_form", "masked_levels", "raw_skeleton", "raw_skeletons",
           "written_nodes", "written_skeletons"]

MASK_NAME = "<constant>"
MASK = Const(MASK_NAME)
LEVELS = ("structure", "exponents", "all")

_MASK = (SYM, MASK_NAME, 0.0, ())
_NEG_MASK = (CALL, "mul", 0.0, (MINUS_ONE, _MASK))  # a negative number: a sign on a placeholder


def _term_key(term: tuple) -> tuple:
    """Sum terms sort by what follows their sign and (masked) coefficient, then as a whole."""
    if term[0] == CALL and term[1] == "mul":
        rest = term[3]
        if rest[0] == MINUS_ONE:
            rest = rest[1:]
        if rest[0] == _MASK:
            rest = rest[1:]
        if len(rest) < len(term[3]):
            return (rest[0] if len(rest) == 1 else (CALL, "mul", 0.0, rest)) if rest else _MASK, term
    return (term, term)


def _mask_node(node: tuple, keep_exponents: bool) -> tuple:
    """The masked node, built bottom-up from an explicit stack (no recursion limit)."""
    out: list[tuple] = []
    stack: list[tuple] = [node]  # a node, or (node,): its arguments are masked, mask it
    pop, push, append = stack.pop, stack.append, out.append
    while stack:
        current = pop()
        kind = current[0]
        if kind == CALL:
            push((current,))
            stack.extend(reversed(current[3]))
        elif kind == NUM:
            append(_NEG_MASK if current[2] < 0 else _MASK)  # a sign is structure: -2 is -<c>
        elif kind == SYM:
            append(_MASK)
        elif kind == RAW:  # a subtree the time limit left as written: its skeleton as written
            written = raw_skeleton(current[4], "exponents" if keep_exponents else "structure", drop=False)
            append(from_expr(written))
        elif type(kind) is tuple:  # (node,): a call whose masked arguments are the last of ``out``
            current = kind
            n = len(current[3])
            masked = out[len(out) - n:]
            del out[len(out) - n:]
            append(_masked_call(current, masked, keep_exponents))
        else:
            append(current)
    return out[0]


def _masked_call(node: tuple, masked: list[tuple], keep_exponents: bool) -> tuple:
    """One call given its masked arguments: kept exponents and signs put back, placeholders
    merged, sums and products sorted again."""
    op, args = node[1], node[3]
    if op == "pow" and args[1][0] == NUM:
        if keep_exponents:
            return _MASK if masked[0] == _MASK else (CALL, "pow", 0.0, (masked[0], args[1]))
        masked = [masked[0], _MASK]  # at "structure" an exponent is masked whole, sign included
    sign = False
    if op == "mul" and args[0][0] == NUM and args[0][2] < 0:  # a sign, not a fitted constant: kept
        sign = True
        masked = masked[1:] if args[0] == MINUS_ONE else [_MASK, *masked[1:]]
    if op in ("add", "mul"):
        flat = []
        for arg in masked:  # a placeholder sum/product never appears inside its own kind, but be safe
            flat.extend(arg[3] if (arg[0] == CALL and arg[1] == op) else (arg,))
        others = [arg for arg in flat if arg != _MASK]
        if not others:
            return _NEG_MASK if sign else _MASK
        others.sort(key=_term_key if op == "add" else factor_key)
        if len(others) < len(flat):
            others.insert(0, _MASK)
        if sign:
            others.insert(0, MINUS_ONE)
        return others[0] if len(others) == 1 else (CALL, op, 0.0, tuple(others))
    if all(arg == _MASK or arg == _NEG_MASK for arg in masked):
        return _MASK
    if op in ("max", "min"):
        masked.sort()
    return (CALL, op, 0.0, tuple(masked))


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(map(repr, LEVELS))}, got {level!r}")


def masked_form(expr: Expr, level: str, *, time_limit: float = DEFAULT_TIME_LIMIT, positive=()) -> CanonicalForm:
    """The canonical form of ``expr`` with its numbers masked at ``level``; ``complete`` is the
    canonicalisation's flag (False when the time limit cut it short). ``positive`` as in
    :func:`~srbf.expr.canonical.canonicalize`."""
    _check_level(level)
    positive = positive_set(positive)
    key = cache_key("masked", level, positive, expr)
    if key is not None:
        found = _CACHE.get(key)
        if found is not None:
            return found
    form, node = canonical_node(expr, time_limit, positive)
    if level == "all":
        return form
    try:
        masked = _mask_node(node, keep_exponents=True)
        if level == "structure":
            masked = _mask_node(masked, keep_exponents=False)
        result = CanonicalForm(to_expr(masked), form.complete)
    except RecursionError:  # only for a tree the canonical form already gave up on
        return CanonicalForm(raw_skeleton(expr), False)
    if key is not None and form.complete:
        _CACHE.put(key, result)
    return result


def masked_levels(expr: Expr, *, time_limit: float = DEFAULT_TIME_LIMIT, positive=()) -> tuple[CanonicalForm, Expr, Expr]:
    """The canonical form of ``expr`` and its "exponents" and "structure" masks, as ``canonicalize``
    and ``mask`` give them, from one canonicalisation and one exponents masking (the judge needs
    all three of every formula); the two masked trees are built once per distinct skeleton."""
    positive = positive_set(positive)
    form, node = canonical_node(expr, time_limit, positive)
    if form.complete:
        try:
            exponents = _mask_node(node, keep_exponents=True)
            key = cache_key("skeleton", exponents)
            found = _CACHE.get(key) if key is not None else None
            if found is None:
                found = _skeleton_trees(exponents)
                if key is not None:
                    _CACHE.put(key, found)
            return form, found[0], found[1]
        except RecursionError:
            pass
    # cut short by the time limit (each level canonicalises again, as mask does) or too deep
    return (form, mask(expr, "exponents", time_limit=time_limit, positive=positive),
            mask(expr, "structure", time_limit=time_limit, positive=positive))  # fmt: skip


def _skeleton_trees(exponents: tuple) -> tuple[Expr, Expr]:
    """The "exponents" and "structure" trees of one exponents node (hashed: they get compared).
    ``masked_levels`` caches them by that node: fitted constants differ from formula to formula,
    skeletons recur (a method returns a few shapes), and a formula of a known skeleton gets the
    very trees as before, on which the judge's caches hit by identity."""
    structure = _mask_node(exponents, keep_exponents=False)
    tree = to_expr(exponents, hashed=True)  # often the structure too (no exponent kept): one tree for both
    return tree, (tree if structure == exponents else to_expr(structure, hashed=True))


def mask(expr: Expr, level: str, *, time_limit: float = DEFAULT_TIME_LIMIT, positive=()) -> Expr:
    """The masked canonical tree of ``expr`` at ``level`` ("structure", "exponents" or "all")."""
    return masked_form(expr, level, time_limit=time_limit, positive=positive).expr


def _is_zero(node: Expr) -> bool:
    return type(node) is Num and node.value == 0


def _without_zeros(node: Call, args: tuple) -> Expr:
    """One written operation with its literal zeros worked out (args already done)."""
    op = node.op
    if len(args) == 2:
        left, right = args
        if op == "mul" and (_is_zero(left) or _is_zero(right)):
            return Num(0.0)
        if op == "div" and _is_zero(left):
            return Num(0.0)
        if op == "add" and (_is_zero(left) or _is_zero(right)):
            return left if _is_zero(right) else right
        if op == "sub" and _is_zero(right):
            return left
        if op == "sub" and _is_zero(left):
            return Call("neg", (right,))
        if op == "pow" and _is_zero(right):
            return Num(1.0)
        if op == "pow" and _is_zero(left) and type(right) is Num and right.value > 0:
            return Num(0.0)
    elif op == "neg" and _is_zero(args[0]):
        return Num(0.0)
    return _rebuilt_call(node, args)


def drop_zeros(expr: Expr) -> Expr:
    """The formula as written, with literal zeros worked out: a product or quotient with a 0
    factor (or numerator) is 0, a 0 term leaves its sum, ``x**0`` is 1. The canonical form does
    this and more; raw skeletons use this so that ``0*x1`` is never the skeleton of ``c*x1``."""
    if not _has_zero(expr):
        return expr  # the common case, found without rebuilding the tree
    return rebuild(expr, lambda leaf: leaf, _without_zeros)


def _has_zero(expr: Expr) -> bool:
    """Whether the tree has a literal 0 (a plain stack: this runs on every formula the judge reads)."""
    stack = [expr]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is Call:
            extend(node.args)
        elif kind is Num and node.value == 0:
            return True
    return False


_NEG_RAW = hashed_call("neg", (MASK,))  # a negative literal as written: a minus sign on a number


def _written_number(leaf: Expr) -> Expr:
    """A leaf of the written form, masked: a number (``pi``, ``e``) is MASK, a negative one MASK
    under a minus sign (a sign is structure, not part of a fitted number)."""
    kind = type(leaf)
    if kind is Num:
        return _NEG_RAW if leaf.value < 0 else MASK
    return MASK if kind is Const else leaf


def _is_exponent(node: Call) -> bool:
    return node.op == "pow" and len(node.args) == 2 and type(node.args[1]) is Num


def raw_skeleton(expr: Expr, level: str = "structure", *, drop: bool = True) -> Expr:
    """The formula as written (literal zeros worked out first unless ``drop=False``, see
    :func:`drop_zeros`) with every number (and ``pi``, ``e``) replaced by MASK, a negative number
    by ``neg(MASK)``; a number standing as the exponent of a power is kept at level "exponents"
    and masked whole (sign included) at level "structure", as in the canonical form."""
    if level not in ("structure", "exponents"):
        raise ValueError(f"level must be 'structure' or 'exponents', got {level!r}")
    keep = level == "exponents"

    def call(node: Call, args: tuple) -> Expr:
        if _is_exponent(node):
            args = (args[0], node.args[1] if keep else MASK)
        return _rebuilt_call(node, args)

    written = drop_zeros(expr) if drop else expr
    return rebuild(written, _written_number, call)


def raw_skeletons(expr: Expr) -> tuple[Expr, Expr]:
    """``raw_skeleton(expr, "structure")`` and ``raw_skeleton(expr, "exponents")`` from one walk (the
    judge needs both of every formula): the two share every subtree without a kept exponent."""

    def leaf(node: Expr) -> tuple[Expr, Expr]:
        masked = _written_number(node)
        return masked, masked

    def call(node: Call, pairs: tuple) -> tuple[Expr, Expr]:
        structure = tuple([pair[0] for pair in pairs])
        exponents = tuple([pair[1] for pair in pairs])
        if _is_exponent(node):
            structure, exponents = (structure[0], MASK), (exponents[0], node.args[1])
        masked = _rebuilt_call(node, structure)
        return masked, (masked if all(map(is_, exponents, structure)) else _rebuilt_call(node, exponents))

    return rebuild(drop_zeros(expr), leaf, call)


# -- the written form, order forgotten: the judge's second route ---------------------------------

_CHAINS = {"add": ("add", "sub"), "sub": ("add", "sub"), "mul": ("mul", "div"), "div": ("mul", "div")}
_FLIPPED = {"add": "neg", "mul": "inv"}  # how a subtracted term / a divisor is marked
_NEG_WRITTEN = (CALL, "neg", 0.0, (_MASK,))


def _chain_operands(node: Call, ops: tuple[str, str]) -> list[tuple[Expr, bool]]:
    """The operands of a chain of ``ops`` (``add``/``sub`` or ``mul``/``div``), each with whether
    it is subtracted (divided by); iterative: a long sum is a deep binary tree."""
    operands: list[tuple[Expr, bool]] = []
    stack: list[tuple[Expr, bool]] = [(node, False)]
    while stack:
        current, flipped = stack.pop()
        if type(current) is Call and current.op in ops and (current.op == ops[0] or len(current.args) == 2):
            args = current.args
            if current.op == ops[1]:
                stack.append((args[1], not flipped))
                stack.append((args[0], flipped))
            else:
                stack.extend((arg, flipped) for arg in reversed(args))
        else:
            operands.append((current, flipped))
    return operands


def written_skeletons(expr: Expr) -> tuple[Expr, Expr]:
    """The formula as written, numbers masked as in :func:`raw_skeleton` (``structure`` and
    ``exponents`` levels), with the order of its terms and factors forgotten: every chain of
    ``+``/``-`` is one sum of its operands (a subtracted one under ``neg``) and every chain of
    ``*``/``/`` one product (a divisor under ``inv``), each sorted. It is the judge's second route
    to a structural match ("written exactly like the truth"), so that term order never changes a
    metric; ``srr_raw`` keeps the order (``raw_skeleton``)."""
    structure, exponents = written_nodes(expr)
    tree = to_expr(structure, hashed=True)
    return tree, (tree if exponents is structure else to_expr(exponents, hashed=True))


def written_nodes(expr: Expr) -> tuple[tuple, tuple]:
    """:func:`written_skeletons` as the canonical form's internal nodes (nested tuples, compared
    at C speed): what the judge keeps of every formula, without building trees."""
    out: list[tuple[tuple, tuple]] = []
    stack: list = [drop_zeros(expr)]
    pop, push, append = stack.pop, stack.append, out.append
    while stack:
        item = pop()
        kind = type(item)
        if kind is tuple:  # (op, flags, node): build ``node`` from the last len(flags) results
            op, flags, node = item
            n = len(flags)
            parts = out[len(out) - n:]
            del out[len(out) - n:]
            append(_written_call(op, flags, parts, node))
        elif kind is Num:
            leaf = _NEG_WRITTEN if item.value < 0 else _MASK
            append((leaf, leaf))
        elif kind is Var:
            leaf = (VAR, item.name, 0.0, ())
            append((leaf, leaf))
        elif kind is Call:
            ops = _CHAINS.get(item.op)
            if ops is not None and (item.op in ("add", "mul") or len(item.args) == 2):
                operands = _chain_operands(item, ops)
                push((ops[0], tuple(flag for _, flag in operands), item))
                stack.extend(operand for operand, _ in reversed(operands))
            else:
                push((item.op, (False,) * len(item.args), item))
                stack.extend(reversed(item.args))
        else:  # a named constant (pi, e) or the placeholder
            append((_MASK, _MASK))
    return out[0]


def _written_call(op: str, flags: tuple, parts: list, node: Call) -> tuple[tuple, tuple]:
    if op in _FLIPPED:
        mark = _FLIPPED[op]
        levels = []
        for level in (0, 1):
            args = [(CALL, mark, 0.0, (part[level],)) if flag else part[level] for part, flag in zip(parts, flags)]
            args.sort()
            levels.append((CALL, op, 0.0, tuple(args)))
        return levels[0], (levels[0] if levels[1] == levels[0] else levels[1])
    if op == "pow" and len(parts) == 2 and type(node.args[1]) is Num:
        return ((CALL, "pow", 0.0, (parts[0][0], _MASK)), (CALL, "pow", 0.0, (parts[0][1], num(node.args[1].value))))
    structure = (CALL, op, 0.0, tuple(part[0] for part in parts))
    exponents = (CALL, op, 0.0, tuple(part[1] for part in parts))
    return structure, (structure if exponents == structure else exponents)


def _rebuilt_call(node: Call, args: tuple) -> Expr:
    """``node`` itself when its arguments came back unchanged (by identity: no deep comparison)."""
    return node if all(map(is_, args, node.args)) else hashed_call(node.op, args)  # skeletons get compared
