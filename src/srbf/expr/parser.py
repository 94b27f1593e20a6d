"""Read a formula string, in any spelling SR packages emit, into srbf's tree. Never evaluates it.

Accepted: Python/SymPy infix (``x0**2 + sin(x1)``), caret powers, a leading ``y =`` (or the
target's own name), function-call prefix (``add(mul(X0, X0), X1)``), capitalised and
module-prefixed names (``Sin``, ``np.sin``, ``Recip``), NumPy 2's scalar reprs as the numbers
they are (``np.float64(1.47)`` is 1.47), and prefix token lists (``+ x1 * 2.5 x2``). Variables are
matched by name; generic column names (``x0``, ``X_1``) are mapped to columns by index, 0-based
unless ``one_based=True``. A formula is untrusted input: it is tokenised and parsed by hand, and
every failure is a :class:`ParseError` naming the offending token and its position. The readers
are ``infix`` and ``prefix``; what they share (names, digits, calls) is in ``syntax``.
"""

from __future__ import annotations

import re
from typing import Sequence

from srbf.expr.infix import InfixParser
from srbf.expr.prefix import PrefixParser, prefix_from_string
from srbf.expr.syntax import NameResolver, ParseError, check_digits, numpy_scalars
from srbf.expr.tree import Expr

__all__ = ["DEFAULT_TARGET", "ParseError", "parse"]

_EQUALS_RE = re.compile(r"(?<![<>!=])=(?!=)")  # an equation's '=', not '==', '<=', '>=' or '!='
DEFAULT_TARGET = "y"


def parse(
    text: str | Sequence[str],
    variables: Sequence[str] | None = None,
    *,
    one_based: bool = False,
    by_index: bool = False,
    notation: str = "auto",
    target: str | None = None,
    hashed: bool = False,
) -> Expr:
    """Parse ``text`` into a tree.

    ``variables`` names the input columns in order; when given, any other identifier is an error.
    Generic column names (``x3``, ``X_3``) resolve by name first, then by 0-based index; with
    ``by_index=True`` (0-based) or ``one_based=True`` they always resolve by index, which is what
    a method that numbers its columns means. ``notation`` is "auto", "infix" or "prefix"; a list
    of tokens is always prefix.

    An equation ``lhs = formula`` is read when ``lhs`` is ``target`` (the problem's output name)
    or ``y``; any other left-hand side (an input variable, ``f(x)``) is a ParseError. Only the
    ASCII digits 0-9 are digits: another script's digit (``٣``) is a ParseError, never a number.

    ``hashed=True`` computes the hash of each infix operation as it is built, for a tree that
    will be hashed anyway (a cache key): far cheaper than the hash a call computes on first use.
    """
    resolver = NameResolver(variables, one_based=one_based, by_index=by_index or one_based)
    if not isinstance(text, str):
        tokens = [numpy_scalars(str(t), brackets=False).strip() for t in text]
        for index, token in enumerate(tokens):
            check_digits(token, f"token {index}", index)
        return PrefixParser(tokens, None, resolver).parse()
    if notation not in ("auto", "infix", "prefix"):
        raise ValueError(f"notation must be 'auto', 'infix' or 'prefix', got {notation!r}")
    if not text.strip():
        raise ParseError("empty formula", "", 0)
    check_digits(text)
    start = _formula_start(text, target, resolver)
    if notation == "prefix":
        return prefix_from_string(numpy_scalars(text, brackets=False), start, resolver)
    try:
        return InfixParser(numpy_scalars(text, brackets=True), start, resolver, hashed).parse()
    except ParseError as infix_error:
        if notation == "infix":
            raise
        try:
            return prefix_from_string(numpy_scalars(text, brackets=False), start, resolver)
        except ParseError:
            raise infix_error from None


def _formula_start(text: str, target: str | None, resolver: NameResolver) -> int:
    """Where the formula starts: after ``target =`` or ``y =``, else at 0 (no '=' in the text)."""
    match = _EQUALS_RE.search(text)
    if match is None:
        return 0
    lhs, pos = text[: match.start()].strip(), match.start()
    names = [DEFAULT_TARGET] + ([target] if target and target != DEFAULT_TARGET else [])
    if lhs in names:
        return match.end()
    expected = " or ".join(repr(name) for name in reversed(names))
    if not lhs:
        raise ParseError(f"nothing before '=' at position {pos}: expected {expected} = formula", "=", pos)
    if lhs in resolver.known or (resolver.variables is not None and resolver.column(lhs) is not None):
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is an input variable, not the target ({expected})"
    else:
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is not the target's name ({expected})"
    raise ParseError(f"{why}: an equation is read only as target = formula", lhs, pos)
